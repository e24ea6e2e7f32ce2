package dev.courier.outbox;

import java.net.URI;
import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Range;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigDef.ValidString;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.config.types.Password;

/** Settings of the {@link OutboxRelay}, declared once with default, validator and doc. */
public final class OutboxRelayConfig extends AbstractConfig {

  public static final String NAME = "outbox.relay.name";
  public static final String BOOTSTRAP_SERVERS = "bootstrap.servers";
  public static final String DB_HOST = "database.hostname";
  public static final String DB_PORT = "database.port";
  public static final String DB_NAME = "database.dbname";
  public static final String DB_USER = "database.user";
  public static final String DB_PASSWORD = "database.password";
  public static final String TOPIC_PREFIX = "outbox.topic.prefix";
  public static final String SLOT = "outbox.slot.name";
  public static final String PUBLICATION = "outbox.publication.name";
  public static final String OFFSET_TOPIC = "outbox.offset.storage.topic";
  public static final String OFFSET_FLUSH_MS = "outbox.offset.flush.interval.ms";
  public static final String HEARTBEAT_MS = "outbox.heartbeat.interval.ms";
  public static final String INVALID_ROW_POLICY = "outbox.invalid.row.policy";
  public static final String MAX_BATCH = "outbox.max.batch.size";
  public static final String DELIVERY_TIMEOUT_MS = "outbox.delivery.timeout.ms";
  public static final String POLL_INTERVAL_MS = "outbox.poll.interval.ms";

  private static final ConfigDef CONFIG =
      new ConfigDef()
          .define(
              NAME,
              Type.STRING,
              "courier-outbox-relay",
              new ConfigDef.NonEmptyString(),
              Importance.MEDIUM,
              "Name of the relay (the Debezium engine name, and the key of its stored offsets).")
          .define(
              BOOTSTRAP_SERVERS,
              Type.STRING,
              ConfigDef.NO_DEFAULT_VALUE,
              new ConfigDef.NonEmptyString(),
              Importance.HIGH,
              "Kafka bootstrap servers the events are published to.")
          .define(
              DB_HOST,
              Type.STRING,
              ConfigDef.NO_DEFAULT_VALUE,
              new ConfigDef.NonEmptyString(),
              Importance.HIGH,
              "PostgreSQL host of the outbox table.")
          .define(
              DB_PORT, Type.INT, 5432, Range.between(1, 65535), Importance.HIGH, "PostgreSQL port.")
          .define(
              DB_NAME,
              Type.STRING,
              ConfigDef.NO_DEFAULT_VALUE,
              new ConfigDef.NonEmptyString(),
              Importance.HIGH,
              "Database holding the outbox table.")
          .define(
              DB_USER,
              Type.STRING,
              ConfigDef.NO_DEFAULT_VALUE,
              new ConfigDef.NonEmptyString(),
              Importance.HIGH,
              "User with the REPLICATION attribute (or a superuser).")
          .define(DB_PASSWORD, Type.PASSWORD, "", Importance.HIGH, "Password of that user.")
          .define(
              TOPIC_PREFIX,
              Type.STRING,
              "outbox",
              new ConfigDef.NonEmptyString(),
              Importance.HIGH,
              "Events go to <prefix>.<aggregatetype>; invalid rows to <prefix>.outbox.dlt.")
          .define(
              SLOT,
              Type.STRING,
              "courier_outbox",
              new ConfigDef.NonEmptyString(),
              Importance.MEDIUM,
              "Logical replication slot (created on first start; it holds WAL until events are relayed).")
          .define(
              PUBLICATION,
              Type.STRING,
              "courier_outbox_pub",
              new ConfigDef.NonEmptyString(),
              Importance.MEDIUM,
              "Publication limited to the outbox and heartbeat tables.")
          .define(
              OFFSET_TOPIC,
              Type.STRING,
              "courier-outbox-offsets",
              new ConfigDef.NonEmptyString(),
              Importance.MEDIUM,
              "Compacted topic where the relay stores its source offsets.")
          .define(
              OFFSET_FLUSH_MS,
              Type.LONG,
              1000L,
              Range.atLeast(0),
              Importance.LOW,
              "How often acknowledged positions are stored; events after the last stored position"
                  + " are re-sent (with their ids) after a crash.")
          .define(
              HEARTBEAT_MS,
              Type.INT,
              10_000,
              Range.atLeast(0),
              Importance.MEDIUM,
              "Heartbeat interval; each heartbeat writes a row so an idle outbox does not pin WAL"
                  + " (0 turns heartbeats off).")
          .define(
              INVALID_ROW_POLICY,
              Type.STRING,
              "fail",
              ValidString.in("fail", "dead-letter"),
              Importance.HIGH,
              "What to do with a row that cannot be published (no aggregate id, too large): 'fail'"
                  + " stops the relay naming the row, nothing skipped; 'dead-letter' sends the raw"
                  + " row with the reason to <prefix>.outbox.dlt and goes on.")
          .define(
              DELIVERY_TIMEOUT_MS,
              Type.INT,
              120_000,
              Range.atLeast(2_000),
              Importance.LOW,
              "How long the producer tries one send before the relay sends it again (Kafka's"
                  + " delivery.timeout.ms); the relay itself never gives up on a committed event.")
          .define(
              POLL_INTERVAL_MS,
              Type.INT,
              20,
              Range.atLeast(1),
              Importance.LOW,
              "Longest wait for more changes before a batch is relayed (Debezium's"
                  + " poll.interval.ms): lower means less latency per event.")
          .define(
              MAX_BATCH,
              Type.INT,
              2048,
              Range.between(1, 100_000),
              Importance.LOW,
              "Most change events handed to the relay per batch.");

  public OutboxRelayConfig(Map<String, ?> originals) {
    super(CONFIG, originals, false);
  }

  /**
   * Settings for a relay named after {@code prefix} (topics {@code <prefix>.<aggregatetype>}, slot
   * {@code <prefix>_slot}, publication {@code <prefix>_pub}, offsets {@code <prefix>.offsets}) on
   * the database of a JDBC URL such as {@code jdbc:postgresql://db:5432/app}.
   */
  public static Map<String, String> settings(
      String bootstrapServers, String jdbcUrl, String user, String password, String prefix) {
    if (!jdbcUrl.startsWith("jdbc:postgresql://")) {
      throw new ConfigException(DB_HOST, jdbcUrl, "not a jdbc:postgresql:// URL");
    }
    URI uri = URI.create(jdbcUrl.substring("jdbc:".length()));
    Map<String, String> settings = new HashMap<>();
    settings.put(NAME, prefix + "-relay");
    settings.put(BOOTSTRAP_SERVERS, bootstrapServers);
    settings.put(DB_HOST, uri.getHost());
    settings.put(DB_PORT, String.valueOf(uri.getPort() < 0 ? 5432 : uri.getPort()));
    settings.put(DB_NAME, uri.getPath().substring(1));
    settings.put(DB_USER, user);
    settings.put(DB_PASSWORD, password);
    settings.put(TOPIC_PREFIX, prefix);
    settings.put(SLOT, prefix + "_slot");
    settings.put(PUBLICATION, prefix + "_pub");
    settings.put(OFFSET_TOPIC, prefix + ".offsets");
    return settings;
  }

  public static ConfigDef configDef() {
    return new ConfigDef(CONFIG);
  }

  public String prefix() {
    return getString(TOPIC_PREFIX);
  }

  public String deadLetterTopic() {
    return prefix() + ".outbox.dlt";
  }

  public String jdbcUrl() {
    return "jdbc:postgresql://"
        + getString(DB_HOST)
        + ":"
        + getInt(DB_PORT)
        + "/"
        + getString(DB_NAME);
  }

  public Password password() {
    return getPassword(DB_PASSWORD);
  }
}
