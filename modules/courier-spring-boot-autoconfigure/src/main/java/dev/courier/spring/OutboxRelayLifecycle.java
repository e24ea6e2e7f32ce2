package dev.courier.spring;

import dev.courier.core.ServiceHealth;
import dev.courier.outbox.OutboxRelay;
import io.micrometer.core.instrument.MeterRegistry;
import io.opentelemetry.api.OpenTelemetry;
import java.time.Clock;
import java.time.Instant;
import java.util.Map;
import java.util.Objects;
import org.springframework.context.SmartLifecycle;

/**
 * The outbox relay inside a Spring application ({@code courier.outbox.relay.enabled=true}): the
 * same {@link OutboxRelay} as {@code courier relay}, with its leadership and fencing, so of several
 * replicas of the application one streams and the others stand by. Started after every singleton,
 * stopped before the DataSource and Kafka clients it shares the JVM with are closed (phase {@link
 * #PHASE}); a stop lets the batch in flight finish and stores its position.
 */
public final class OutboxRelayLifecycle implements SmartLifecycle {

  /** Stops after Spring Kafka's listener containers, starts before them. */
  public static final int PHASE = SmartLifecycle.DEFAULT_PHASE - 2048;

  private final Map<String, Object> settings;
  private final MeterRegistry registry;
  private final Clock clock;
  private final OpenTelemetry openTelemetry;
  private volatile OutboxRelay relay;

  public OutboxRelayLifecycle(Map<String, ?> settings, MeterRegistry registry, Clock clock) {
    this(settings, registry, clock, null);
  }

  /** As the other, tracing each event's publish with {@code openTelemetry} (null: no spans). */
  public OutboxRelayLifecycle(
      Map<String, ?> settings, MeterRegistry registry, Clock clock, OpenTelemetry openTelemetry) {
    this.openTelemetry = openTelemetry;
    this.settings = Map.copyOf(settings);
    this.registry = Objects.requireNonNull(registry, "registry");
    this.clock = Objects.requireNonNull(clock, "clock");
  }

  @Override
  public synchronized void start() {
    if (relay == null) {
      // Waits out PostgreSQL and Kafka outages in the background (its health says why); a bad
      // setting fails here, and with it the application's start.
      relay = OutboxRelay.create(settings, registry, clock, openTelemetry);
    }
  }

  @Override
  public synchronized void stop() {
    OutboxRelay running = relay;
    relay = null;
    if (running != null) {
      running.close();
    }
  }

  @Override
  public boolean isRunning() {
    return relay != null;
  }

  @Override
  public int getPhase() {
    return PHASE;
  }

  /** The relay's health: streaming, standing by, waiting (and why) or failed. */
  public ServiceHealth health() {
    OutboxRelay running = relay;
    return running == null
        ? ServiceHealth.waiting("STOPPED", "the relay is not running", Instant.now(clock))
        : running.health();
  }

  /** The running relay, or null before the start and after the stop. */
  public OutboxRelay relay() {
    return relay;
  }
}
