package dev.courier.retry.internal;

import java.time.Duration;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;

/**
 * How long this member may still take its partitions to be its own, so a handler call may start.
 *
 * <p>A worker frozen past its session (a stopped process, a long pause) or cut off from Kafka keeps
 * its records in hand while the group gives its partitions to another member. Thawed, or while cut
 * off, its handler thread went on with the calls it had been handed: the next owner had called the
 * key's later records by then, and the endpoint's last word on the key was an earlier record
 * ({@code FaultCampaign} seeds 4, 8 and 16 of 2026-12-07, every one of them with a worker frozen or
 * cut off). A consumer learns that it lost its partitions only at a poll after a heartbeat was
 * refused, too late for calls already handed over.
 *
 * <p>So a call starts only within {@code length} of the last proof that the member was in its
 * group: a poll that completed a join (its generation changed) or the coordinator listing it as a
 * member ({@link MembershipProbe}). The coordinator removes a member only once {@code
 * session.timeout.ms} has passed without its heartbeat, which a healthy member sends every {@code
 * heartbeat.interval.ms}; {@code length} is the difference, so a lease never outlives the
 * membership it was proven for. Proofs are sought when half of it is gone, so a healthy member's
 * calls never wait on it.
 */
public final class MembershipLease {

  /** A gate that never closes: calls that need no lease (tests of the handler calls alone). */
  public static final MembershipLease NONE = new MembershipLease(Duration.ZERO, System::nanoTime);

  private final long lengthNanos;
  private final LongSupplier nanos;
  private final Object proofs = new Object();

  /** When the last proof was sought (its request sent), in {@code nanos} time; null before any. */
  private volatile Long provenAt;

  /**
   * @param length how long a proof holds; zero for {@link #NONE}
   * @param nanos a monotonic clock in nanoseconds (thawed, it shows how long the process was out)
   */
  public MembershipLease(Duration length, LongSupplier nanos) {
    this.lengthNanos = length.toNanos();
    this.nanos = nanos;
  }

  /** The length for a consumer's settings: the session timeout less one heartbeat interval. */
  public static Duration lengthFor(Duration sessionTimeout, Duration heartbeatInterval) {
    Duration length = sessionTimeout.minus(heartbeatInterval);
    return length.isNegative() || length.isZero() ? sessionTimeout.dividedBy(2) : length;
  }

  /** The member was in its group when the proof now answered was sought at {@code sentAt}. */
  public void proven(long sentAt) {
    synchronized (proofs) {
      Long at = provenAt;
      if (at == null || sentAt - at > 0) {
        provenAt = sentAt;
      }
      proofs.notifyAll();
    }
  }

  /** The time of {@link #nanos}, for a proof about to be sought. */
  public long now() {
    return nanos.getAsLong();
  }

  /** Whether a call may start now. */
  public boolean holds() {
    if (lengthNanos == 0) {
      return true;
    }
    Long at = provenAt;
    return at != null && nanos.getAsLong() - at < lengthNanos;
  }

  /** Whether a new proof should be sought: half the lease is gone, or there is none. */
  public boolean dueForProof() {
    if (lengthNanos == 0) {
      return false;
    }
    Long at = provenAt;
    return at == null || nanos.getAsLong() - at >= lengthNanos / 2;
  }

  /**
   * On the handler thread, before a call: waits until the lease holds, as long as the call is still
   * {@code wanted} (a lost or revoked partition cancels it; a close ends it).
   *
   * @return true when the call may start; false when it is no longer wanted
   */
  public boolean awaitHeld(BooleanSupplier wanted) {
    while (!holds()) {
      if (!wanted.getAsBoolean()) {
        return false;
      }
      synchronized (proofs) {
        if (holds()) {
          break;
        }
        try {
          proofs.wait(50); // woken by a proof; the period only rechecks whether it is still wanted
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return false;
        }
      }
    }
    return wanted.getAsBoolean();
  }

  /** On the loop's thread: waits up to {@code max} for the lease to hold; whether it does. */
  public boolean awaitFor(Duration max) {
    long until = nanos.getAsLong() + max.toNanos();
    synchronized (proofs) {
      while (!holds()) {
        long left = until - nanos.getAsLong();
        if (left <= 0) {
          return false;
        }
        try {
          proofs.wait(Math.max(1, left / 1_000_000));
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return false;
        }
      }
    }
    return true;
  }

  /** Why calls wait, for {@code /health}; null while the lease holds. */
  public String problem() {
    if (holds()) {
      return null;
    }
    Long at = provenAt;
    if (at == null) {
      return null; // not in its group yet: nothing was handed to it
    }
    return "handler calls wait: this member was last seen in its group "
        + Duration.ofNanos(nanos.getAsLong() - at).toMillis()
        + " ms ago, longer than its lease of "
        + Duration.ofNanos(lengthNanos).toMillis()
        + " ms (session.timeout.ms less heartbeat.interval.ms): its partitions may be another"
        + " member's by now";
  }
}
