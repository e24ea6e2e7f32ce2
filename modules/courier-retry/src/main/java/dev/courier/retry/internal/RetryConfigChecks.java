package dev.courier.retry.internal;

import static dev.courier.retry.RetryConfig.BACKOFF_INITIAL_MS;
import static dev.courier.retry.RetryConfig.BACKOFF_MAX_MS;
import static dev.courier.retry.RetryConfig.GROUP_ID;
import static dev.courier.retry.RetryConfig.HANDLER_TIMEOUT_MS;
import static dev.courier.retry.RetryConfig.TOPIC_RETENTION_MS;

import dev.courier.retry.RetryConfig;
import dev.courier.retry.RetryOrdering;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.common.config.ConfigException;

/** What a retry configuration's settings must be together, checked at start. */
public final class RetryConfigChecks {

  /** Kafka's {@code max.poll.interval.ms} default. */
  private static final int DEFAULT_MAX_POLL_MS = 300_000;

  private RetryConfigChecks() {}

  /** Throws {@link ConfigException} naming the first setting that does not fit the others. */
  public static void check(RetryConfig c) {
    long maxPollInterval =
        Long.parseLong(
            String.valueOf(
                c.clients()
                    .consumer()
                    .getOrDefault(
                        ConsumerConfig.MAX_POLL_INTERVAL_MS_CONFIG, DEFAULT_MAX_POLL_MS)));
    if (c.getLong(HANDLER_TIMEOUT_MS) >= maxPollInterval) {
      throw new ConfigException(
          HANDLER_TIMEOUT_MS,
          c.getLong(HANDLER_TIMEOUT_MS),
          "must be below kafka."
              + ConsumerConfig.MAX_POLL_INTERVAL_MS_CONFIG
              + " ("
              + maxPollInterval
              + "): a rebalance waits for the call in flight at most that long");
    }
    if (c.ordering() == RetryOrdering.KEY) {
      CoPartitioning.require(c.clients().consumer());
    }
    if (c.getLong(BACKOFF_MAX_MS) < c.getLong(BACKOFF_INITIAL_MS)) {
      throw new ConfigException(
          BACKOFF_MAX_MS, c.getLong(BACKOFF_MAX_MS), "must be >= " + BACKOFF_INITIAL_MS);
    }
    if (c.getLong(TOPIC_RETENTION_MS) <= c.getLong(BACKOFF_MAX_MS)) {
      throw new ConfigException(
          TOPIC_RETENTION_MS,
          c.getLong(TOPIC_RETENTION_MS),
          "must exceed " + BACKOFF_MAX_MS + " or delayed records expire before they are due");
    }
    String unusable = c.topics().unusable();
    if (unusable != null) {
      throw new ConfigException(GROUP_ID, c.group(), unusable);
    }
  }
}
