package dev.courier.idempotency;

import dev.courier.core.CourierHeaders;
import java.time.Duration;
import java.util.Map;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Range;
import org.apache.kafka.common.config.ConfigDef.Type;

/** Settings of the idempotent consumer store, declared once with default, validator and doc. */
public final class IdempotencyConfig extends AbstractConfig {

  public static final String CONSUMER_NAME = "idempotency.consumer.name";
  public static final String OPERATION_KEY_HEADER = "idempotency.operation.key.header";
  public static final String BATCH_MODE = "idempotency.batch.mode";
  public static final String RETENTION_MS = "idempotency.retention.ms";
  public static final String RETENTION_CHECK_OVERRIDE = "idempotency.retention.check.override";
  public static final String PURGE_INTERVAL_MS = "idempotency.purge.interval.ms";
  public static final String PURGE_BATCH_SIZE = "idempotency.purge.batch.size";

  private static final ConfigDef CONFIG =
      new ConfigDef()
          .define(
              CONSUMER_NAME,
              Type.STRING,
              ConfigDef.NO_DEFAULT_VALUE,
              new ConfigDef.NonEmptyString(),
              Importance.HIGH,
              "Name under which this consumer's applied keys are recorded, usually its consumer"
                  + " group (an IdempotentConsumer joins a group of this name unless"
                  + " idempotency.group.id says otherwise, and the store's meters are tagged"
                  + " group=<name>). A replay group that must not apply again what its original"
                  + " group applied keeps the original's name; consumers with different effects"
                  + " need different names.")
          .define(
              OPERATION_KEY_HEADER,
              Type.STRING,
              CourierHeaders.ID,
              new ConfigDef.NonEmptyString(),
              Importance.MEDIUM,
              "Header holding the operation key when the record has no courier.operation.key (a"
                  + " record from the retry ladder or a DLT replay carries it there); the outbox"
                  + " writes the event id to 'id'. The same rule as retry.operation.key.header.")
          .define(
              BATCH_MODE,
              Type.BOOLEAN,
              false,
              Importance.MEDIUM,
              "One transaction per poll batch with a savepoint per record, instead of one per"
                  + " record.")
          .define(
              RETENTION_MS,
              Type.LONG,
              Duration.ofDays(7).toMillis(),
              Range.atLeast(1),
              Importance.HIGH,
              "How long applied keys are kept. Must cover the source topics' retention.ms, or a"
                  + " redelivery of an older record would be applied again.")
          .define(
              RETENTION_CHECK_OVERRIDE,
              Type.BOOLEAN,
              false,
              Importance.LOW,
              "Start even when idempotency.retention.ms is shorter than a source topic's"
                  + " retention (accepting that replays of older records are applied again).")
          .define(
              PURGE_INTERVAL_MS,
              Type.LONG,
              Duration.ofHours(1).toMillis(),
              Range.atLeast(1000),
              Importance.LOW,
              "How often expired keys are purged.")
          .define(
              PURGE_BATCH_SIZE,
              Type.INT,
              10_000,
              Range.between(1, 1_000_000),
              Importance.LOW,
              "Most keys deleted per purge statement, so a purge never holds long locks.");

  public IdempotencyConfig(Map<String, ?> originals) {
    super(CONFIG, originals, false);
  }

  public static ConfigDef configDef() {
    return new ConfigDef(CONFIG);
  }

  public String consumerName() {
    return getString(CONSUMER_NAME);
  }

  public Duration retention() {
    return Duration.ofMillis(getLong(RETENTION_MS));
  }
}
