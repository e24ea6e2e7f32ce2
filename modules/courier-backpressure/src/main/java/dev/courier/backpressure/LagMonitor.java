package dev.courier.backpressure;

import dev.courier.core.ServiceHealth;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.util.Map;

/**
 * Watches consumer groups: each tick reads committed and log-end offsets with batched Admin
 * requests, the age of the oldest unconsumed record of every lagging partition, updates rates and
 * Burrow-style status over the window, and publishes Prometheus meters.
 */
public interface LagMonitor extends BacklogSignals, AutoCloseable {

  /**
   * A monitor with its own Admin client and age reader for these {@link MonitorConfig} settings;
   * call {@link #start()} or {@link #tick()}. While no name in {@code bootstrap.servers} resolves,
   * those clients cannot be built: the monitor is then {@code WAITING} (see {@link #health()}), and
   * builds them once a tick finds a name that does.
   *
   * @throws org.apache.kafka.common.config.ConfigException naming a bad setting
   */
  static LagMonitor create(Map<String, ?> settings, MeterRegistry registry, Clock clock) {
    return new DefaultLagMonitor(new MonitorConfig(settings), registry, clock);
  }

  /**
   * Samples once now and returns what it saw (also what {@link #latest()} returns afterwards).
   *
   * @throws IllegalStateException with the reason while no name in {@code bootstrap.servers}
   *     resolves, or when the cluster does not answer the group listing
   */
  LagSnapshot tick();

  /** The last completed tick, or {@link LagSnapshot#EMPTY} before the first. */
  LagSnapshot latest();

  /** Ticks every {@code monitor.tick.interval.ms} on a background thread until closed. */
  void start();

  /**
   * Ready while the latest figures are younger than {@code monitor.stale.after.ms}; otherwise STALE
   * (or STARTING, or WAITING while no bootstrap name resolves) with the reason, the last tick's
   * failure included. One failed tick does not make the figures wrong, only older.
   */
  ServiceHealth health();

  /** Whether the figures are fresh (see {@link #health()}). */
  default boolean healthy() {
    return health().ready();
  }

  /** How old figures may be before they are stale. */
  java.time.Duration staleAfter();

  @Override
  default java.util.Optional<GroupLag> group(String group) {
    return latest().group(group);
  }

  @Override
  void close();
}
