package dev.courier.outbox.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The slot against the stored position and the server it was read from; no I/O. */
class SlotIdentityTest {

  private static final ServerIdentity PRIMARY = new ServerIdentity("7415", 1);

  @Test
  void aSlotAtOrBehindThePositionOnTheSameServerIsTheOne() {
    assertThat(verdict(stored(100, PRIMARY), slot(90, false), PRIMARY).gap()).isFalse();
    assertThat(verdict(stored(100, PRIMARY), slot(100, false), PRIMARY).gap()).isFalse();
  }

  @Test
  void aMissingOrAheadSlotIsAGap() {
    assertThat(verdict(stored(100, PRIMARY), Optional.empty(), PRIMARY).description())
        .contains("does not exist");
    assertThat(verdict(stored(100, PRIMARY), slot(120, false), PRIMARY).description())
        .contains("ahead of the relay's stored position");
  }

  @Test
  void aNewTimelineWhoseSlotIsNoFailoverSlotIsAGapEvenBehindThePosition() {
    ServerIdentity promoted = new ServerIdentity("7415", 2);
    SlotIdentity.Verdict verdict = verdict(stored(100, PRIMARY), slot(60, false), promoted);
    assertThat(verdict.gap()).isTrue();
    assertThat(verdict.description())
        .contains("changed timeline from 1 to 2")
        .contains("no failover slot");
    assertThat(verdict.server()).isEqualTo(promoted);
  }

  @Test
  void aFailoverSlotCrossesAPromotion() {
    ServerIdentity promoted = new ServerIdentity("7415", 2);
    assertThat(verdict(stored(100, PRIMARY), slot(90, true), promoted).gap()).isFalse();
  }

  @Test
  void anotherClusterIsAGapWhateverItsSlot() {
    SlotIdentity.Verdict verdict =
        verdict(stored(100, PRIMARY), slot(90, true), new ServerIdentity("9999", 1));
    assertThat(verdict.gap()).isTrue();
    assertThat(verdict.description()).contains("another cluster");
  }

  @Test
  void aPositionStoredWithoutItsServerIsJudgedByPositionAlone() {
    ServerIdentity promoted = new ServerIdentity("9999", 3);
    assertThat(
            verdict(Optional.of(StoredPosition.Position.at(100)), slot(90, false), promoted).gap())
        .isFalse();
  }

  @Test
  void noStoredPositionIsAFirstStart() {
    assertThat(verdict(Optional.empty(), Optional.empty(), PRIMARY).gap()).isFalse();
  }

  private static SlotIdentity.Verdict verdict(
      Optional<StoredPosition.Position> stored,
      Optional<SlotIdentity.Slot> slot,
      ServerIdentity server) {
    return SlotIdentity.compare("s", stored, slot, server);
  }

  private static Optional<StoredPosition.Position> stored(long lsn, ServerIdentity server) {
    return Optional.of(new StoredPosition.Position(lsn, Optional.of(server)));
  }

  private static Optional<SlotIdentity.Slot> slot(long lsn, boolean failover) {
    return Optional.of(new SlotIdentity.Slot(lsn, failover));
  }
}
