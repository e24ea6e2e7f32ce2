package dev.courier.core.internal;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;

/**
 * Whether the consumer can reach Kafka, from its own metrics, read on the loop's thread after each
 * poll (a consumer is not for other threads). A poll returns nothing both when there is nothing to
 * read and when the brokers are out of reach: only the client's network tells them apart.
 *
 * <p>Two signs are judged. {@code connection-count} at zero for longer than {@link #GRACE} is a
 * broker gone. But a network partition or a frozen broker keeps connections open (and a proxy or
 * load balancer in the path accepts new ones), so {@code response-total} is watched as well: a
 * healthy consumer hears from the brokers several times a second (fetches answer within {@code
 * fetch.max.wait.ms}, heartbeats every few seconds even while the loop is busy or paused), so
 * silence across a poll for longer than the client's own {@code request.timeout.ms} means the
 * brokers are not answering. The one healthy silence that long is a JoinGroup held open by a
 * rebalance waiting for a slow member; that is reported too, and clears when the group settles.
 */
public final class KafkaConnection {

  /** Longer than a reconnect takes (reconnect.backoff.max.ms is 1 s), short of a long outage. */
  static final Duration GRACE = Duration.ofSeconds(3);

  private static final String GROUP = "consumer-metrics";

  private final Clock clock;
  private final String bootstrapServers;
  private final Duration silenceLimit;
  private Metric connections;
  private Metric responses;

  /** Since when no connection is up; null while one is. */
  private volatile Instant downSince;

  /** The responses counted so far, and when that count last grew. */
  private double heard = -1;

  private Instant heardAt;

  /** When the brokers were last heard from, once a poll found them silent too long; else null. */
  private volatile Instant silentSince;

  /**
   * @param silenceLimit how long the brokers may leave the consumer unanswered before it is judged
   *     cut off; the consumer's {@code request.timeout.ms} (see {@link #requestTimeout})
   */
  public KafkaConnection(String bootstrapServers, Duration silenceLimit, Clock clock) {
    this.bootstrapServers = bootstrapServers;
    this.silenceLimit = silenceLimit;
    this.clock = clock;
  }

  /** The consumer's {@code request.timeout.ms}, or Kafka's default of 30 s where it is not set. */
  public static Duration requestTimeout(Map<String, ?> consumerConfig) {
    Object v = consumerConfig.get(CommonClientConfigs.REQUEST_TIMEOUT_MS_CONFIG);
    return Duration.ofMillis(v == null ? 30_000 : Long.parseLong(String.valueOf(v).trim()));
  }

  /** After a poll, on the loop's thread. */
  public void observe(Consumer<?, ?> consumer) {
    if (connections == null || responses == null) {
      for (Map.Entry<MetricName, ? extends Metric> m : consumer.metrics().entrySet()) {
        if (m.getKey().group().equals(GROUP)) {
          switch (m.getKey().name()) {
            case "connection-count" -> connections = m.getValue();
            case "response-total" -> responses = m.getValue();
            default -> {}
          }
        }
      }
      if (connections == null || responses == null) {
        return;
      }
    }
    observe(number(connections), number(responses));
  }

  /** One poll's reading: connections open now, and responses received since the consumer began. */
  void observe(double openConnections, double responsesReceived) {
    Instant now = clock.instant();
    if (openConnections > 0) {
      downSince = null;
    } else if (downSince == null) {
      downSince = now;
    }
    if (responsesReceived > heard) {
      heard = responsesReceived;
      heardAt = now;
      silentSince = null;
    } else if (Duration.between(heardAt, now).compareTo(silenceLimit) > 0) {
      silentSince = heardAt;
    }
  }

  /** Why the consumer cannot reach Kafka, or null while it can (or only just lost it). */
  public String problem() {
    Instant now = clock.instant();
    Instant down = downSince;
    if (down != null && Duration.between(down, now).compareTo(GRACE) >= 0) {
      return "no connection to Kafka at "
          + bootstrapServers
          + " for "
          + Duration.between(down, now).toSeconds()
          + " s; waiting for it, and committing nothing that is not done";
    }
    Instant silent = silentSince;
    if (silent != null) {
      return "no answer from Kafka at "
          + bootstrapServers
          + " for "
          + Duration.between(silent, now).toSeconds()
          + " s though connected (a network partition or a frozen broker); waiting for it, and"
          + " committing nothing that is not done";
    }
    return null;
  }

  private static double number(Metric metric) {
    return metric.metricValue() instanceof Number n ? n.doubleValue() : 0;
  }
}
