package dev.courier.outbox.internal;

import dev.courier.core.ServiceHealth;
import dev.courier.outbox.OutboxRelayConfig;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.Set;
import java.util.function.BooleanSupplier;
import javax.management.JMException;
import javax.management.MBeanServer;
import javax.management.MalformedObjectNameException;
import javax.management.ObjectName;
import org.apache.kafka.common.config.ConfigException;

/**
 * The health the relay reports: the supervisor's state, sharpened while it streams by Debezium's
 * own view of the replication connection (its {@code Connected} metric) and by how long Kafka has
 * acknowledged nothing.
 */
public final class RelayHealth {

  private final OutboxRelayConfig config;
  private final RelayState state;
  private final RelayBatchHandler handler;
  private final String postgresAt;
  private final BooleanSupplier streaming;
  private final ObjectName streamingMetrics;

  public RelayHealth(
      OutboxRelayConfig config,
      RelayState state,
      RelayBatchHandler handler,
      String postgresAt,
      BooleanSupplier streaming) {
    this.config = config;
    this.state = state;
    this.handler = handler;
    this.postgresAt = postgresAt;
    this.streaming = streaming;
    try {
      this.streamingMetrics =
          new ObjectName(
              "debezium.postgres:type=connector-metrics,context=streaming,server="
                  + config.cdcPrefix());
    } catch (MalformedObjectNameException e) {
      throw new ConfigException(OutboxRelayConfig.TOPIC_PREFIX, config.prefix(), e.getMessage());
    }
  }

  public ServiceHealth current() {
    ServiceHealth base = state.current();
    if (!base.status().equals("STREAMING")) {
      return base;
    }
    if (!connectedToPostgres()) {
      return ServiceHealth.waiting(
          "RECOVERING",
          "lost the connection to PostgreSQL at "
              + postgresAt
              + "; streaming again as soon as it answers (every "
              + config.getInt(OutboxRelayConfig.POSTGRES_RECONNECT_INTERVAL_MS)
              + " ms)",
          base.since());
    }
    Duration waiting = handler.waitingForKafka();
    long bound = config.getLong(OutboxRelayConfig.HEALTH_ACK_TIMEOUT_MS);
    if (waiting.toMillis() > bound) {
      String last = handler.lastSendFailure();
      return ServiceHealth.waiting(
          "DEGRADED",
          "Kafka has acknowledged nothing for over "
              + bound / 1000
              + " s ("
              + OutboxRelayConfig.HEALTH_ACK_TIMEOUT_MS
              + "); the relay keeps sending"
              + (last == null ? "" : "; last: " + last),
          base.since());
    }
    return base;
  }

  private boolean connectedToPostgres() {
    if (!streaming.getAsBoolean()) {
      return false;
    }
    try {
      MBeanServer server = ManagementFactory.getPlatformMBeanServer();
      Set<ObjectName> names = server.queryNames(streamingMetrics, null);
      if (names.isEmpty()) {
        return false;
      }
      return Boolean.TRUE.equals(server.getAttribute(names.iterator().next(), "Connected"));
    } catch (JMException e) {
      return true; // no metrics is no evidence of a lost connection
    }
  }
}
