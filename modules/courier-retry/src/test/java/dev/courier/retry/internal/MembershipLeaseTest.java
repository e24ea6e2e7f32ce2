package dev.courier.retry.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class MembershipLeaseTest {

  private final AtomicLong nanos = new AtomicLong(1_000);
  private final MembershipLease lease = new MembershipLease(Duration.ofSeconds(5), nanos::get);

  private void pass(Duration d) {
    nanos.addAndGet(d.toNanos());
  }

  @Test
  void aProofHoldsForTheLengthFromWhenItWasSoughtAndIsSoughtAgainHalfWay() {
    assertThat(lease.holds()).as("never proven").isFalse();
    assertThat(lease.dueForProof()).isTrue();
    assertThat(lease.problem()).as("not in a group yet: nothing to report").isNull();
    long sent = lease.now();
    pass(Duration.ofMillis(200)); // the answer's round trip
    lease.proven(sent);
    assertThat(lease.holds()).isTrue();
    assertThat(lease.dueForProof()).isFalse();
    pass(Duration.ofMillis(2_300));
    assertThat(lease.dueForProof()).as("half of it gone").isTrue();
    assertThat(lease.holds()).isTrue();
    lease.proven(sent - 1);
    pass(Duration.ofMillis(2_500));
    assertThat(lease.holds()).as("an older proof does not extend it").isFalse();
    assertThat(lease.problem())
        .contains("last seen in its group 5000 ms ago")
        .contains("lease of 5000 ms");
  }

  @Test
  void aThawedProcessWaitsForANewProofOrForItsCallToBeCancelled() {
    lease.proven(lease.now());
    pass(Duration.ofSeconds(9)); // frozen past its session
    AtomicInteger asked = new AtomicInteger();
    assertThat(lease.awaitHeld(() -> asked.incrementAndGet() < 3))
        .as("cancelled while it waited")
        .isFalse();
    assertThat(
            lease.awaitHeld(
                () -> {
                  if (asked.incrementAndGet() == 5) {
                    lease.proven(lease.now()); // the coordinator lists it: the answer comes
                  }
                  return true;
                }))
        .isTrue();
  }

  @Test
  void theLengthIsTheSessionLessAHeartbeatAndNoneNeverCloses() {
    assertThat(MembershipLease.lengthFor(Duration.ofSeconds(45), Duration.ofSeconds(3)))
        .isEqualTo(Duration.ofSeconds(42));
    assertThat(MembershipLease.lengthFor(Duration.ofSeconds(6), Duration.ofSeconds(6)))
        .isEqualTo(Duration.ofSeconds(3));
    assertThat(MembershipLease.NONE.holds()).isTrue();
    assertThat(MembershipLease.NONE.dueForProof()).isFalse();
    assertThat(new MembershipLease(Duration.ZERO, Clock.systemUTC()::millis).problem()).isNull();
  }

  @Test
  void theLoopWaitsForAProofAtMostAsLongAsItSays() {
    AtomicLong ticking = new AtomicLong();
    MembershipLease stale =
        new MembershipLease(Duration.ofSeconds(5), () -> ticking.addAndGet(1_000_000));
    assertThat(stale.awaitFor(Duration.ofMillis(20))).as("no proof comes").isFalse();
    stale.proven(stale.now());
    assertThat(stale.awaitFor(Duration.ofMillis(20))).isTrue();
  }
}
