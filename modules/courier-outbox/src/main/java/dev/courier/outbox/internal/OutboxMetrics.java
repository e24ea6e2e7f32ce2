package dev.courier.outbox.internal;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.ToDoubleFunction;

/**
 * The relay's meters. Prometheus names: {@code courier_outbox_events_relayed_total}, {@code
 * courier_outbox_batches_total}, {@code courier_outbox_dead_lettered_total}, {@code
 * courier_outbox_resent_total}, {@code courier_outbox_commit_to_ack_seconds} and {@code
 * courier_outbox_commit_to_capture_seconds} (histograms), {@code
 * courier_outbox_last_event_timestamp_seconds}, {@code courier_outbox_engine_running}, {@code
 * courier_outbox_slot_retained_wal_bytes}, {@code courier_outbox_ready}, {@code
 * courier_outbox_engine_restarts_total}, {@code courier_outbox_slot_gaps_total}, {@code
 * courier_outbox_leader} (1 while this replica leads its slot), {@code
 * courier_outbox_leader_takeovers_total} and {@code courier_outbox_leader_takeover_seconds} (from
 * winning the leadership as a standby to streaming), {@code courier_outbox_start_seconds} (from a
 * start to the first batch relayed).
 */
public final class OutboxMetrics {

  public final Counter relayed;
  public final Counter batches;
  public final Counter deadLettered;
  public final Counter resent;
  public final Counter engineRestarts;
  public final Counter slotGaps;
  public final Timer commitToAck;
  public final Timer commitToCapture;
  public final AtomicLong lastEventMillis = new AtomicLong();
  public final AtomicLong running = new AtomicLong();
  public final AtomicLong leader = new AtomicLong();
  public final Counter takeovers;
  public final Timer takeover;
  public final Timer start;

  private final MeterRegistry registry;
  private final String relay;

  public OutboxMetrics(MeterRegistry registry, String relay) {
    this.registry = registry;
    this.relay = relay;
    relayed =
        Counter.builder("courier.outbox.events.relayed")
            .tag("relay", relay)
            .description("Events published and acknowledged by Kafka.")
            .register(registry);
    batches =
        Counter.builder("courier.outbox.batches")
            .tag("relay", relay)
            .description("Change batches relayed.")
            .register(registry);
    deadLettered =
        Counter.builder("courier.outbox.dead.lettered")
            .tag("relay", relay)
            .description("Invalid rows sent to the outbox dead-letter topic.")
            .register(registry);
    resent =
        Counter.builder("courier.outbox.resent")
            .tag("relay", relay)
            .description("Events sent again because Kafka did not acknowledge them in time.")
            .register(registry);
    engineRestarts =
        Counter.builder("courier.outbox.engine.restarts")
            .tag("relay", relay)
            .description("CDC engines started again after one stopped on a retriable error.")
            .register(registry);
    slotGaps =
        Counter.builder("courier.outbox.slot.gaps")
            .tag("relay", relay)
            .description(
                "Starts that accepted a slot other than the one the stored position came from"
                    + " (outbox.slot.gap.policy=accept): events in between were lost.")
            .register(registry);
    commitToAck =
        Timer.builder("courier.outbox.commit.to.ack")
            .tag("relay", relay)
            .description("From the outbox row's commit to Kafka's acknowledgement.")
            .publishPercentileHistogram()
            .publishPercentiles(0.5, 0.99)
            .minimumExpectedValue(Duration.ofMillis(1))
            .maximumExpectedValue(Duration.ofSeconds(60))
            .register(registry);
    commitToCapture =
        Timer.builder("courier.outbox.commit.to.capture")
            .tag("relay", relay)
            .description(
                "From the outbox row's commit to the relay receiving it from logical decoding:"
                    + " the part of commit-to-ack spent before Kafka is involved.")
            .publishPercentileHistogram()
            .publishPercentiles(0.5, 0.99)
            .minimumExpectedValue(Duration.ofMillis(1))
            .maximumExpectedValue(Duration.ofSeconds(60))
            .register(registry);
    takeovers =
        Counter.builder("courier.outbox.leader.takeovers")
            .tag("relay", relay)
            .description("Times this replica, waiting as a standby, won the leadership.")
            .register(registry);
    takeover =
        Timer.builder("courier.outbox.leader.takeover")
            .tag("relay", relay)
            .description(
                "From winning the leadership as a standby to streaming (checks, the former"
                    + " leader's walsender ended, the engine started).")
            .register(registry);
    start =
        Timer.builder("courier.outbox.start")
            .tag("relay", relay)
            .description(
                "From the start (or restart after an outage) of the relay to its first batch"
                    + " relayed: checks, leadership, stored position, slot, engine, first change."
                    + " On an idle outbox the last phase waits for the first write or heartbeat."
                    + " The log line 'first batch (N changes) relayed ... after the start' breaks"
                    + " it down.")
            .register(registry);
    Gauge.builder("courier.outbox.leader", leader, AtomicLong::get)
        .tag("relay", relay)
        .description("1 while this replica leads its slot, else 0 (a standby).")
        .register(registry);
    Gauge.builder(
            "courier.outbox.last.event.timestamp.seconds", lastEventMillis, v -> v.get() / 1e3)
        .tag("relay", relay)
        .description("Commit time of the newest event Kafka acknowledged (epoch seconds).")
        .register(registry);
    Gauge.builder("courier.outbox.engine.running", running, AtomicLong::get)
        .tag("relay", relay)
        .description("1 while the CDC engine streams from the slot, else 0.")
        .register(registry);
  }

  /**
   * The gauges read from the relay itself: WAL the slot retains, and whether it is ready.
   *
   * @param retainedWalBytes the slot's retained WAL in bytes (-1 when it cannot be read)
   * @param ready 1 while the relay is ready, else 0
   */
  public <T> void relayGauges(
      T source, ToDoubleFunction<T> retainedWalBytes, ToDoubleFunction<T> ready) {
    Gauge.builder("courier.outbox.slot.retained.wal", source, retainedWalBytes)
        .tag("relay", relay)
        .baseUnit("bytes")
        .description("WAL the replication slot keeps because the relay has not confirmed it yet.")
        .register(registry);
    Gauge.builder("courier.outbox.ready", source, ready)
        .tag("relay", relay)
        .description("1 while the relay streams and Kafka acknowledges, else 0 (see /health).")
        .register(registry);
  }
}
