package dev.courier.idempotency;

import dev.courier.core.CourierTracing;
import dev.courier.idempotency.internal.IdempotencyMetrics;
import dev.courier.idempotency.internal.KeySql;
import dev.courier.idempotency.internal.KeySql.Coordinates;
import dev.courier.idempotency.internal.KeySql.KeyRow;
import dev.courier.idempotency.internal.TransientFailures;
import io.opentelemetry.api.trace.Span;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Savepoint;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import javax.sql.DataSource;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** {@link IdempotentHandler} on PostgreSQL: the key row and the effect share one transaction. */
final class TransactionalIdempotentHandler<K, V> implements IdempotentHandler<K, V> {

  private static final Logger LOG = LoggerFactory.getLogger(TransactionalIdempotentHandler.class);

  private final DataSource dataSource;
  private final String consumer;
  private final OperationKeyExtractor<K, V> keys;
  private final CanonicalForm<V> canonical;
  private final RecordEffect<K, V> effect;
  private final Clock clock;
  private final IdempotencyMetrics metrics;
  private final boolean batchMode;

  /** The store's tables still to be created before the first record (the database was away). */
  private volatile boolean migrationPending;

  TransactionalIdempotentHandler(Builder<K, V> builder) {
    this.dataSource = builder.dataSource;
    this.consumer = builder.config.consumerName();
    this.keys = builder.keyExtractor;
    this.canonical = builder.canonicalForm;
    this.effect = builder.effect;
    this.clock = builder.clock;
    this.metrics = IdempotencyMetrics.of(builder.meterRegistry, consumer);
    this.batchMode = builder.config.getBoolean(IdempotencyConfig.BATCH_MODE);
  }

  IdempotencyMetrics metrics() {
    return metrics;
  }

  /**
   * Creates the tables now; a database that is unavailable leaves it to the first record, and any
   * other failure (no privilege, a broken schema) is raised here.
   */
  void migrateUnlessUnavailable() {
    try {
      IdempotencySchema.migrate(dataSource);
    } catch (RuntimeException e) {
      if (!TransientFailures.isTransient(e)) {
        throw e;
      }
      LOG.warn(
          "{}: the database is unavailable ({}); its tables are created before the first record",
          consumer,
          e.getMessage());
      migrationPending = true;
    }
  }

  /** The tables, if the database was away at build: a failure is the record's, and transient. */
  private void ensureSchema() {
    if (migrationPending) {
      synchronized (this) {
        if (migrationPending) {
          try {
            IdempotencySchema.migrate(dataSource);
          } catch (RuntimeException e) {
            throw new RecordEffectException("creating the store's tables failed: " + e, e);
          }
          migrationPending = false;
        }
      }
    }
  }

  @Override
  public String consumerName() {
    return consumer;
  }

  @Override
  public boolean batchMode() {
    return batchMode;
  }

  @Override
  public Outcome handle(ConsumerRecord<K, V> record) {
    return handle(record, null);
  }

  @Override
  public Outcome handle(Connection connection, ConsumerRecord<K, V> record) {
    return handle(record, Objects.requireNonNull(connection, "connection"));
  }

  private Outcome handle(ConsumerRecord<K, V> record, Connection callers) {
    ensureSchema();
    KeyRow row;
    try {
      row = keyRow(record);
    } catch (MissingOperationKeyException | PayloadNotCanonicalException e) {
      metrics.failed.increment();
      throw e;
    }
    byte[] earlier = callers == null ? applyOnce(record, row) : applyIn(callers, record, row);
    if (earlier == null) {
      metrics.processed.increment();
      return Outcome.APPLIED;
    }
    try {
      Outcome outcome = duplicateOrReuse(record, row, earlier);
      metrics.duplicates.increment();
      return outcome;
    } catch (IdempotencyKeyReusedException e) {
      recordRejection(row, e, earlier);
      metrics.keyReuses.increment();
      throw e;
    }
  }

  /** As {@link #applyOnce}, in the caller's transaction: no commit, no rollback. */
  private byte[] applyIn(Connection c, ConsumerRecord<K, V> record, KeyRow row) {
    try {
      if (c.getAutoCommit()) {
        throw new IllegalStateException(
            "the idempotent store joins the caller's transaction, and the connection is in"
                + " autocommit mode: start a transaction first (in Spring: @Transactional)");
      }
      byte[] earlier = KeySql.insert(c, consumer, row, clock.instant()).orElse(null);
      if (earlier == null) {
        effect.apply(c, record);
      }
      return earlier;
    } catch (IllegalStateException e) {
      throw e;
    } catch (Exception e) {
      metrics.failed.increment();
      throw new RecordEffectException(
          "effect of " + describe(record) + " (key '" + row.key() + "') failed: " + e, e);
    }
  }

  /**
   * Records the key and applies the effect; returns the earlier fingerprint if already recorded.
   */
  private byte[] applyOnce(ConsumerRecord<K, V> record, KeyRow row) {
    try (Connection c = dataSource.getConnection()) {
      c.setAutoCommit(false);
      try {
        byte[] earlier = KeySql.insert(c, consumer, row, clock.instant()).orElse(null);
        if (earlier == null) {
          effect.apply(c, record);
          IdempotentHandler.BEFORE_DB_COMMIT.reach();
          c.commit();
          return null;
        }
        c.rollback();
        return earlier;
      } catch (Exception e) {
        rollbackQuietly(c);
        metrics.failed.increment();
        throw new RecordEffectException(
            "effect of " + describe(record) + " (key '" + row.key() + "') failed: " + e, e);
      }
    } catch (SQLException e) {
      metrics.failed.increment();
      throw new RecordEffectException("no database connection for " + describe(record), e);
    }
  }

  @Override
  public List<RecordResult<K, V>> handleBatch(List<ConsumerRecord<K, V>> records) {
    ensureSchema();
    List<RecordResult<K, V>> results = new ArrayList<>(records.size());
    Map<String, KeyRow> firstByKey = new HashMap<>();
    List<ConsumerRecord<K, V>> candidates = new ArrayList<>();
    List<KeyRow> rows = new ArrayList<>();
    Map<ConsumerRecord<K, V>, RecordResult<K, V>> decided = new HashMap<>();
    Map<ConsumerRecord<K, V>, byte[]> reuses = new HashMap<>();
    for (ConsumerRecord<K, V> record : records) {
      KeyRow row;
      try {
        row = keyRow(record);
      } catch (MissingOperationKeyException | PayloadNotCanonicalException e) {
        // Refused alone: its neighbours still commit.
        decided.put(record, RecordResult.failed(record, e));
        continue;
      }
      KeyRow first = firstByKey.putIfAbsent(row.key(), row);
      if (first != null) {
        // The same key twice in one batch: the later one is a redelivery or a reuse.
        decided.put(record, alreadyRecorded(record, row, first.fingerprint(), reuses));
        continue;
      }
      candidates.add(record);
      rows.add(row);
    }
    // Fast path: one transaction without savepoints (a savepoint costs two round trips per
    // record). Only if an effect fails is the batch redone with a savepoint per record.
    if (!runBatch(candidates, rows, decided, reuses, false)) {
      runBatch(candidates, rows, decided, reuses, true);
    }
    for (ConsumerRecord<K, V> record : records) {
      RecordResult<K, V> result = decided.get(record);
      if (reuses.containsKey(record)) {
        recordRejection(keyRow(record), (RuntimeException) result.failure(), reuses.get(record));
      }
      count(result);
      results.add(result);
    }
    return results;
  }

  /**
   * Records the batch's keys and applies its effects in one transaction.
   *
   * @return false when an effect failed without savepoints (everything was rolled back)
   */
  private boolean runBatch(
      List<ConsumerRecord<K, V>> candidates,
      List<KeyRow> rows,
      Map<ConsumerRecord<K, V>, RecordResult<K, V>> decided,
      Map<ConsumerRecord<K, V>, byte[]> reuses,
      boolean savepoints) {
    Map<ConsumerRecord<K, V>, RecordResult<K, V>> outcomes = new HashMap<>();
    try (Connection c = dataSource.getConnection()) {
      c.setAutoCommit(false);
      try {
        Map<String, byte[]> earlier =
            rows.isEmpty() ? Map.of() : KeySql.insertBatch(c, consumer, rows, clock.instant());
        for (int i = 0; i < candidates.size(); i++) {
          ConsumerRecord<K, V> record = candidates.get(i);
          KeyRow row = rows.get(i);
          byte[] stored = earlier.get(row.key());
          if (stored != null) {
            outcomes.put(record, alreadyRecorded(record, row, stored, reuses));
          } else if (savepoints) {
            outcomes.put(record, applyWithSavepoint(c, record, row));
          } else {
            try {
              effect.apply(c, record);
              outcomes.put(record, RecordResult.of(record, Outcome.APPLIED));
            } catch (Exception e) {
              c.rollback();
              return false;
            }
          }
        }
        IdempotentHandler.BEFORE_DB_COMMIT.reach();
        c.commit();
      } catch (SQLException | RuntimeException e) {
        rollbackQuietly(c);
        throw new RecordEffectException(
            "batch of " + candidates.size() + " records failed: " + e, e);
      }
    } catch (SQLException e) {
      throw new RecordEffectException("no database connection for a batch", e);
    }
    decided.putAll(outcomes);
    return true;
  }

  private RecordResult<K, V> applyWithSavepoint(
      Connection c, ConsumerRecord<K, V> record, KeyRow row) throws SQLException {
    Savepoint savepoint = c.setSavepoint();
    try {
      effect.apply(c, record);
      c.releaseSavepoint(savepoint);
      return RecordResult.of(record, Outcome.APPLIED);
    } catch (Exception e) {
      c.rollback(savepoint);
      // The key went in with the whole batch; without its effect it must not stay recorded.
      KeySql.delete(c, consumer, row.key());
      return RecordResult.failed(
          record,
          new RecordEffectException(
              "effect of " + describe(record) + " (key '" + row.key() + "') failed: " + e, e));
    }
  }

  /**
   * Decides a record whose key is already recorded; a reuse is noted with the stored fingerprint,
   * so its rejection row is written once the batch has settled (not for a rolled-back pass).
   */
  private RecordResult<K, V> alreadyRecorded(
      ConsumerRecord<K, V> record,
      KeyRow row,
      byte[] stored,
      Map<ConsumerRecord<K, V>, byte[]> reuses) {
    try {
      return RecordResult.of(record, duplicateOrReuse(record, row, stored));
    } catch (IdempotencyKeyReusedException e) {
      reuses.put(record, stored);
      return RecordResult.failed(record, e);
    }
  }

  private Outcome duplicateOrReuse(ConsumerRecord<K, V> record, KeyRow row, byte[] stored) {
    if (Arrays.equals(stored, row.fingerprint())) {
      LOG.debug("skipping redelivered {} (key '{}')", describe(record), row.key());
      return Outcome.DUPLICATE;
    }
    throw new IdempotencyKeyReusedException(consumer, row.key(), describe(record));
  }

  private void recordRejection(KeyRow row, RuntimeException reason, byte[] stored) {
    try (Connection c = dataSource.getConnection()) {
      c.setAutoCommit(true);
      KeySql.reject(
          c,
          consumer,
          row.key(),
          ((dev.courier.core.PermanentError) reason).reason(),
          reason.getMessage(),
          stored,
          row.fingerprint(),
          row.coordinates(),
          clock.instant());
    } catch (SQLException e) {
      // The exception still reaches the caller; losing the audit row must not hide it.
      LOG.error("could not record rejection of key '{}': {}", row.key(), e.toString());
    }
  }

  @Override
  public Optional<String> operationKey(ConsumerRecord<K, V> record) {
    return keys.extract(record);
  }

  private KeyRow keyRow(ConsumerRecord<K, V> record) {
    Coordinates at = new Coordinates(record.topic(), record.partition(), record.offset());
    String key = keys.extract(record).orElse(null);
    if (key != null) {
      // The consumer's span of this record, when it is traced (a no-op otherwise).
      Span.current().setAttribute(CourierTracing.OPERATION_KEY, key);
    }
    if (key == null) {
      MissingOperationKeyException missing =
          new MissingOperationKeyException(keys.describe(), describe(record));
      recordRejection(new KeyRow(null, null, at), missing, null);
      throw missing;
    }
    byte[] form;
    try {
      form = canonical.of(record.value());
    } catch (RuntimeException e) {
      PayloadNotCanonicalException refused = new PayloadNotCanonicalException(describe(record), e);
      recordRejection(new KeyRow(key, null, at), refused, null);
      throw refused;
    }
    return new KeyRow(key, Fingerprints.sha256(form), at);
  }

  private void count(RecordResult<K, V> result) {
    switch (result.outcome()) {
      case APPLIED -> metrics.processed.increment();
      case DUPLICATE -> metrics.duplicates.increment();
      case FAILED -> {
        if (result.failure() instanceof IdempotencyKeyReusedException) {
          metrics.keyReuses.increment();
        } else {
          metrics.failed.increment();
        }
      }
    }
  }

  static String describe(ConsumerRecord<?, ?> record) {
    return record.topic() + "-" + record.partition() + "@" + record.offset();
  }

  private static void rollbackQuietly(Connection c) {
    try {
      c.rollback();
    } catch (SQLException e) {
      LOG.warn("rollback failed: {}", e.toString());
    }
  }
}
