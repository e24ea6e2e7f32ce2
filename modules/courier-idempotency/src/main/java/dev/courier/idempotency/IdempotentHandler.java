package dev.courier.idempotency;

import dev.courier.core.CrashPoint;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Metrics;
import java.sql.Connection;
import java.time.Clock;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import javax.sql.DataSource;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * Applies a record's effect at most once per operation key: in one PostgreSQL transaction it
 * records the key (with a fingerprint of the payload) and runs the effect on the same connection,
 * then commits. A redelivery with the same payload is skipped; the same key with another payload is
 * refused ({@link IdempotencyKeyReusedException}). Offsets are the caller's to commit, and only
 * after this returns. Thread-safe; callable from any framework's listener.
 */
public interface IdempotentHandler<K, V> {

  /** Reached after the effect ran and before its transaction commits. */
  CrashPoint BEFORE_DB_COMMIT = CrashPoint.named("before-db-commit");

  /**
   * Handles one record in its own transaction.
   *
   * @return {@link Outcome#APPLIED} or {@link Outcome#DUPLICATE}
   * @throws IdempotencyKeyReusedException the key was applied with another payload (permanent)
   * @throws MissingOperationKeyException the record has no key (permanent)
   * @throws PayloadNotCanonicalException the payload has no canonical form (permanent)
   * @throws RecordEffectException the effect failed; nothing was committed
   */
  Outcome handle(ConsumerRecord<K, V> record);

  /**
   * Handles one record inside the caller's transaction, on the caller's connection: records the key
   * and runs the effect there, and never commits, rolls back or closes it. The key and the effect
   * then commit or roll back with whatever else the caller does in that transaction (a Spring
   * {@code @Transactional} listener, for one). A duplicate writes nothing. The metrics count the
   * effect as applied when it ran; a later rollback by the caller is not seen.
   *
   * @return {@link Outcome#APPLIED} or {@link Outcome#DUPLICATE}
   * @throws IllegalStateException the connection is in autocommit mode (no transaction to join)
   * @throws IdempotencyKeyReusedException the key was applied with another payload (permanent; the
   *     refusal is recorded on a connection of the handler's own)
   * @throws MissingOperationKeyException the record has no key (permanent)
   * @throws PayloadNotCanonicalException the payload has no canonical form (permanent)
   * @throws RecordEffectException the effect or the key's insert failed: roll the transaction back
   */
  Outcome handle(Connection connection, ConsumerRecord<K, V> record);

  /**
   * Handles a poll batch in one transaction, with a savepoint per record: a failing record is
   * rolled back alone and reported, its neighbours commit. A record without a key or whose payload
   * has no canonical form is reported failed before anything runs. Duplicates of the whole batch
   * are found in one statement.
   */
  List<RecordResult<K, V>> handleBatch(List<ConsumerRecord<K, V>> records);

  /** The name its applied keys are recorded under ({@code idempotency.consumer.name}). */
  String consumerName();

  /**
   * The operation key this handler records a record under, as its extractor reads it; empty when
   * the record has none (or the handler does not say). For telling, e.g. on a record's span.
   */
  default Optional<String> operationKey(ConsumerRecord<K, V> record) {
    return Optional.empty();
  }

  /**
   * Whether a consumer loop should hand this handler whole poll batches ({@code
   * idempotency.batch.mode}); {@link IdempotentConsumer} follows it unless told otherwise.
   */
  default boolean batchMode() {
    return false;
  }

  static <K, V> Builder<K, V> builder() {
    return new Builder<>();
  }

  /** Configures a handler; {@link IdempotencyConfig} keys may be given as a map. */
  final class Builder<K, V> {
    DataSource dataSource;
    private final Map<String, Object> settings = new HashMap<>();
    IdempotencyConfig config;
    OperationKeyExtractor<K, V> keyExtractor;
    CanonicalForm<V> canonicalForm;
    RecordEffect<K, V> effect;
    Clock clock = Clock.systemUTC();
    MeterRegistry meterRegistry = Metrics.globalRegistry;
    boolean migrate = true;

    private Builder() {}

    public Builder<K, V> dataSource(DataSource dataSource) {
      this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
      return this;
    }

    /**
     * Settings by {@link IdempotencyConfig} key, added to those given before; validated when the
     * handler is built, naming a bad key.
     */
    public Builder<K, V> config(Map<String, ?> settings) {
      this.settings.putAll(settings);
      return this;
    }

    /**
     * The name its applied keys are recorded under ({@code idempotency.consumer.name}), added to
     * the settings given so far.
     */
    public Builder<K, V> consumerName(String name) {
      settings.put(IdempotencyConfig.CONSUMER_NAME, Objects.requireNonNull(name, "name"));
      return this;
    }

    /** Default: the header named by {@code idempotency.operation.key.header} ({@code id}). */
    public Builder<K, V> keyExtractor(OperationKeyExtractor<K, V> keyExtractor) {
      this.keyExtractor = Objects.requireNonNull(keyExtractor, "keyExtractor");
      return this;
    }

    /** Required unless values are {@code byte[]} or {@code String}. */
    public Builder<K, V> canonicalForm(CanonicalForm<V> canonicalForm) {
      this.canonicalForm = Objects.requireNonNull(canonicalForm, "canonicalForm");
      return this;
    }

    public Builder<K, V> effect(RecordEffect<K, V> effect) {
      this.effect = Objects.requireNonNull(effect, "effect");
      return this;
    }

    public Builder<K, V> clock(Clock clock) {
      this.clock = Objects.requireNonNull(clock, "clock");
      return this;
    }

    public Builder<K, V> meterRegistry(MeterRegistry registry) {
      this.meterRegistry = Objects.requireNonNull(registry, "registry");
      return this;
    }

    /**
     * Whether to create the store's tables (default true): on build, or, when the database is
     * unavailable then, before the first record, so a consumer started during an outage waits it
     * out instead of failing.
     */
    public Builder<K, V> migrate(boolean migrate) {
      this.migrate = migrate;
      return this;
    }

    public IdempotentHandler<K, V> build() {
      Objects.requireNonNull(dataSource, "dataSource is required");
      Objects.requireNonNull(effect, "effect is required");
      config = new IdempotencyConfig(settings);
      if (keyExtractor == null) {
        keyExtractor =
            OperationKeyExtractor.courier(config.getString(IdempotencyConfig.OPERATION_KEY_HEADER));
      }
      if (canonicalForm == null) {
        canonicalForm = Fingerprints.rawOrText();
      }
      TransactionalIdempotentHandler<K, V> handler = new TransactionalIdempotentHandler<>(this);
      if (migrate) {
        handler.migrateUnlessUnavailable();
      }
      return handler;
    }
  }
}
