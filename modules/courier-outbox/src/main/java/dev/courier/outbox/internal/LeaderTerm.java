package dev.courier.outbox.internal;

import dev.courier.outbox.OutboxRelayConfig;
import java.time.Duration;
import java.util.OptionalLong;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * This replica's part in the slot's leadership: it waits as a standby (live, not ready, the leader
 * named), leads once it wins the lock, renews the lease on a thread of its own while it leads, and
 * steps down at once when it finds the lock another's.
 */
public final class LeaderTerm implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(LeaderTerm.class);

  private final OutboxRelayConfig config;
  private final Leadership leadership;
  private final SlotHandover handover;
  private final OutboxMetrics metrics;
  private final RelayState state;
  private final ScheduledExecutorService keeper =
      Executors.newSingleThreadScheduledExecutor(
          r -> {
            Thread t = new Thread(r, "courier-outbox-leadership");
            t.setDaemon(true);
            return t;
          });

  /** This replica leads and renews its lease. */
  private volatile boolean leading;

  /** When this replica, as a standby, won the leadership; 0 once it streams. */
  private volatile long wonAtNanos;

  public LeaderTerm(
      OutboxRelayConfig config,
      Leadership leadership,
      SlotHandover handover,
      OutboxMetrics metrics,
      RelayState state) {
    this.config = config;
    this.leadership = leadership;
    this.handover = handover;
    this.metrics = metrics;
    this.state = state;
  }

  /**
   * Starts renewing the lease while this replica leads; {@code onLost} runs (on the renewing
   * thread) when a renewal finds the lock another's.
   */
  public void startRenewing(BooleanSupplier closed, Runnable onLost) {
    long lease = config.getLong(OutboxRelayConfig.LEADER_LEASE_MS);
    long every = Math.min(config.getInt(OutboxRelayConfig.LEADER_POLL_INTERVAL_MS), lease / 5);
    keeper.scheduleWithFixedDelay(() -> renew(closed, onLost), every, every, TimeUnit.MILLISECONDS);
  }

  public boolean tryAcquire() throws Outage {
    return leadership.tryAcquire();
  }

  public Leadership leadership() {
    return leadership;
  }

  public boolean leading() {
    return leading;
  }

  /**
   * Waits as a standby for the leadership, in waits of {@code outbox.leader.poll.interval.ms} (at
   * most a second each) on the lock itself: a killed leader's lock is granted the moment PostgreSQL
   * ends its session, a frozen one's when PostgreSQL ends it for idleness.
   *
   * @param pause waits the given time, or less when the relay is closing
   * @return true once this replica won; false when the relay closed first
   */
  public boolean awaitLeadership(
      BooleanSupplier closed, java.util.function.Consumer<Duration> pause) throws Outage {
    leading = false;
    metrics.leader.set(0);
    Duration wait =
        Duration.ofMillis(
            Math.min(1_000, config.getInt(OutboxRelayConfig.LEADER_POLL_INTERVAL_MS)));
    long describedAt = 0;
    while (!closed.getAsBoolean()) {
      if (describedAt == 0 || System.nanoTime() - describedAt > TimeUnit.SECONDS.toNanos(10)) {
        state.waiting(
            "STANDBY",
            "standby: "
                + handover.leader()
                + " leads slot "
                + config.getString(OutboxRelayConfig.SLOT_NAME)
                + "; this relay takes over when it stops");
        describedAt = System.nanoTime();
      }
      long asked = System.nanoTime();
      if (closed.getAsBoolean()) {
        break;
      }
      if (leadership.acquireWithin(wait)) {
        wonAtNanos = System.nanoTime();
        metrics.takeovers.increment();
        return true;
      }
      long left = wait.toNanos() - (System.nanoTime() - asked);
      if (left > 0) {
        pause.accept(Duration.ofNanos(left)); // the wait ended early (the lock's connection went)
      }
    }
    return false;
  }

  public void lead() {
    leading = true;
    metrics.leader.set(1);
  }

  /** The time from winning the lock as a standby to streaming, once, when this start was one. */
  public OptionalLong takeoverMillis() {
    long won = wonAtNanos;
    if (won == 0) {
      return OptionalLong.empty();
    }
    wonAtNanos = 0;
    long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - won);
    metrics.takeover.record(Duration.ofMillis(ms));
    LOG.info("took over slot {} in {} ms", config.getString(OutboxRelayConfig.SLOT_NAME), ms);
    return OptionalLong.of(ms);
  }

  public void stepDown(String reason) {
    if (leading) {
      LOG.warn("{}", reason);
    }
    leading = false;
    metrics.leader.set(0);
    state.waiting("STANDBY", reason);
  }

  private void renew(BooleanSupplier closed, Runnable onLost) {
    if (!leading || closed.getAsBoolean()) {
      return;
    }
    Leadership.Renewal renewal = leadership.renew();
    if (renewal == Leadership.Renewal.TAKEN) {
      stepDown(
          "lost the leadership of slot "
              + config.getString(OutboxRelayConfig.SLOT_NAME)
              + " (its lease lapsed; "
              + handover.leader()
              + " leads now)");
      onLost.run();
    } else if (renewal == Leadership.Renewal.REACQUIRED) {
      // A new term: the engine's batch in flight is the former term's. It stops (its fence
      // refuses it) and starts again from the stored position, which another leader may have
      // moved meanwhile.
      onLost.run();
    }
  }

  /** Stops renewing and gives the lock up: a standby may take over from now on. */
  @Override
  public void close() {
    keeper.shutdownNow();
    leadership.close();
    leading = false;
    metrics.leader.set(0);
  }
}
