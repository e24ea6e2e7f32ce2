package dev.courier.core.internal;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;

/**
 * Whether the consumer is connected to Kafka, from its own {@code connection-count} metric, read on
 * the loop's thread after each poll (a consumer is not for other threads). A poll returns nothing
 * both when there is nothing to read and when the brokers are gone: only the connections tell them
 * apart. Connections that stay down longer than {@link #GRACE} make the consumer unready.
 */
public final class KafkaConnection {

  /** Longer than a reconnect takes (reconnect.backoff.max.ms is 1 s), short of a long outage. */
  static final Duration GRACE = Duration.ofSeconds(3);

  private final Clock clock;
  private final String bootstrapServers;
  private Metric connections;

  /** Since when no connection is up; null while one is. */
  private volatile Instant downSince;

  public KafkaConnection(String bootstrapServers, Clock clock) {
    this.bootstrapServers = bootstrapServers;
    this.clock = clock;
  }

  /** After a poll, on the loop's thread. */
  public void observe(Consumer<?, ?> consumer) {
    if (connections == null) {
      for (Map.Entry<MetricName, ? extends Metric> m : consumer.metrics().entrySet()) {
        if (m.getKey().name().equals("connection-count")
            && m.getKey().group().equals("consumer-metrics")) {
          connections = m.getValue();
        }
      }
      if (connections == null) {
        return;
      }
    }
    Object value = connections.metricValue();
    boolean up = value instanceof Number n && n.doubleValue() > 0;
    if (up) {
      downSince = null;
    } else if (downSince == null) {
      downSince = clock.instant();
    }
  }

  /** Why the consumer is not connected, or null while it is (or only just lost it). */
  public String problem() {
    Instant since = downSince;
    if (since == null) {
      return null;
    }
    Duration down = Duration.between(since, clock.instant());
    if (down.compareTo(GRACE) < 0) {
      return null;
    }
    return "no connection to Kafka at "
        + bootstrapServers
        + " for "
        + down.toSeconds()
        + " s; waiting for it, and committing nothing that is not done";
  }
}
