package dev.courier.idempotency;

import dev.courier.idempotency.internal.IdempotencyMetrics;
import dev.courier.idempotency.internal.KeySql;
import io.micrometer.core.instrument.MeterRegistry;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import javax.sql.DataSource;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.config.TopicConfig;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How long applied keys are kept, and their purge. A key must outlive every copy of its record that
 * can still be delivered: if the window were shorter than a source topic's retention, a replay from
 * the earliest offset would meet purged keys and apply old records again. {@link
 * #checkAgainstTopics} refuses such a window at start unless explicitly overridden.
 */
public final class IdempotencyRetention {

  private static final Logger LOG = LoggerFactory.getLogger(IdempotencyRetention.class);

  private final DataSource dataSource;
  private final IdempotencyConfig config;
  private final Clock clock;
  private final IdempotencyMetrics metrics;

  /**
   * The retention of the keys these settings ({@link IdempotencyConfig}) describe.
   *
   * @throws org.apache.kafka.common.config.ConfigException naming a bad setting
   */
  public static IdempotencyRetention create(
      DataSource dataSource, Map<String, ?> settings, Clock clock, MeterRegistry registry) {
    return new IdempotencyRetention(dataSource, settings, clock, registry);
  }

  private IdempotencyRetention(
      DataSource dataSource, Map<String, ?> settings, Clock clock, MeterRegistry registry) {
    this.dataSource = dataSource;
    this.config = new IdempotencyConfig(settings);
    this.clock = clock;
    this.metrics = IdempotencyMetrics.of(registry, config.consumerName());
  }

  /**
   * Fails, naming the key and the topic, when the window is shorter than a source topic keeps
   * records (compacted and unlimited topics keep them forever).
   */
  public void checkAgainstTopics(Admin admin, Collection<String> topics) {
    Duration window = config.retention();
    boolean override = config.getBoolean(IdempotencyConfig.RETENTION_CHECK_OVERRIDE);
    Map<ConfigResource, Config> configs = describe(admin, topics);
    for (Map.Entry<ConfigResource, Config> entry : configs.entrySet()) {
      String topic = entry.getKey().name();
      long retentionMs =
          Long.parseLong(entry.getValue().get(TopicConfig.RETENTION_MS_CONFIG).value());
      boolean compacted =
          entry.getValue().get(TopicConfig.CLEANUP_POLICY_CONFIG).value().contains("compact");
      boolean forever = retentionMs < 0 || compacted;
      if (forever || window.toMillis() < retentionMs) {
        String problem =
            IdempotencyConfig.RETENTION_MS
                + "="
                + window.toMillis()
                + " is shorter than topic "
                + topic
                + " keeps records ("
                + (forever
                    ? (compacted ? "compacted: forever" : "retention.ms=-1: forever")
                    : "retention.ms=" + retentionMs)
                + "): a redelivery or replay of a record older than the window would be applied"
                + " again";
        if (!override) {
          throw new ConfigException(
              problem
                  + "; raise "
                  + IdempotencyConfig.RETENTION_MS
                  + " or set "
                  + IdempotencyConfig.RETENTION_CHECK_OVERRIDE
                  + "=true to accept that");
        }
        LOG.warn("{} ({}=true)", problem, IdempotencyConfig.RETENTION_CHECK_OVERRIDE);
      }
    }
  }

  /** Deletes keys older than the window, in bounded batches; returns how many. */
  public long purge() {
    Instant cutoff = clock.instant().minus(config.retention());
    int batch = config.getInt(IdempotencyConfig.PURGE_BATCH_SIZE);
    long removed = 0;
    try (Connection c = dataSource.getConnection()) {
      c.setAutoCommit(true);
      int deleted;
      do {
        deleted = KeySql.purge(c, config.consumerName(), cutoff, batch);
        removed += deleted;
      } while (deleted == batch);
      metrics.storeRows(KeySql.count(c, config.consumerName()));
    } catch (SQLException e) {
      throw new IllegalStateException(
          "purging keys of " + config.consumerName() + " failed: " + e, e);
    }
    metrics.purgeRuns.increment();
    metrics.purgedRows.increment(removed);
    LOG.info("purged {} keys of {} older than {}", removed, config.consumerName(), cutoff);
    return removed;
  }

  /** Purges every {@code idempotency.purge.interval.ms} on the given scheduler. */
  public ScheduledFuture<?> schedule(ScheduledExecutorService scheduler) {
    long interval = config.getLong(IdempotencyConfig.PURGE_INTERVAL_MS);
    return scheduler.scheduleWithFixedDelay(
        () -> {
          try {
            purge();
          } catch (RuntimeException e) {
            LOG.error("key purge failed; it runs again in {} ms: {}", interval, e.toString());
          }
        },
        interval,
        interval,
        TimeUnit.MILLISECONDS);
  }

  private static Map<ConfigResource, Config> describe(Admin admin, Collection<String> topics) {
    List<ConfigResource> resources =
        topics.stream().map(t -> new ConfigResource(ConfigResource.Type.TOPIC, t)).toList();
    try {
      return admin.describeConfigs(resources).all().get(30, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while reading topic configs", e);
    } catch (ExecutionException | TimeoutException e) {
      throw new IllegalStateException(
          "cannot read retention of " + topics + ": " + e.getMessage(), e);
    }
  }
}
