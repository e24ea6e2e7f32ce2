package dev.courier.outbox.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.courier.outbox.OutboxRelayConfig;
import dev.courier.outbox.SlotGapPolicy;
import org.junit.jupiter.api.Test;

class SlotGapDeciderTest {

  private static final ServerIdentity SERVER = new ServerIdentity("7415", 1);

  private static final SlotIdentity.Verdict GAP =
      new SlotIdentity.Verdict(
          true, "slot s is at 0/2000 but the stored position is 0/1000", SERVER);
  private static final SlotIdentity.Verdict SAME =
      new SlotIdentity.Verdict(false, "slot s is at the stored position 0/1000", SERVER);

  @Test
  void noGapGoesOnWhateverThePolicy() {
    for (SlotGapPolicy policy : SlotGapPolicy.values()) {
      assertThat(SlotGapDecider.decide(SAME, policy))
          .isEqualTo(new SlotGapDecider.Continue(SAME.description()));
    }
  }

  @Test
  void aGapUnderFailIsRefusedNamingTheSettingAndTheGap() {
    SlotGapDecider.Decision d = SlotGapDecider.decide(GAP, SlotGapPolicy.FAIL);
    assertThat(d).isInstanceOf(SlotGapDecider.Refuse.class);
    assertThat(((SlotGapDecider.Refuse) d).error().getMessage())
        .contains(OutboxRelayConfig.SLOT_GAP_POLICY)
        .contains(GAP.description())
        .contains("=accept");
  }

  @Test
  void aGapUnderAcceptGoesOnSayingWhatIsLost() {
    SlotGapDecider.Decision d = SlotGapDecider.decide(GAP, SlotGapPolicy.ACCEPT);
    assertThat(d).isInstanceOf(SlotGapDecider.Accept.class);
    assertThat(d.message()).contains("accepting a gap").contains(GAP.description());
  }
}
