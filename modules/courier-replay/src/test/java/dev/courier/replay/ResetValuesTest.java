package dev.courier.replay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

class ResetValuesTest {

  @Test
  void scopesParseLikeKafkasTopicOption() {
    assertThat(ResetScope.parse("orders")).isEqualTo(ResetScope.topic("orders"));
    assertThat(ResetScope.parse("orders:0,2").partitions()).isEqualTo(Set.of(0, 2));
    assertThat(ResetScope.parse("orders:0,2")).hasToString("--topic orders:0,2");
    assertThat(ResetScope.allTopics()).hasToString("--all-topics");
    assertThatThrownBy(() -> ResetScope.parse("orders:x"))
        .hasMessageContaining("not a partition number");
  }

  @Test
  void movesCountWhatIsReadAgainOrSkipped() {
    TopicPartition tp = new TopicPartition("orders", 0);
    assertThat(new PartitionMove(tp, 10, 4, 0, 12, Optional.empty()).reReads()).isEqualTo(6);
    assertThat(new PartitionMove(tp, 4, 10, 0, 12, Optional.empty()).skips()).isEqualTo(6);
    // No committed offset: everything from the target to the end is read.
    assertThat(new PartitionMove(tp, -1, 4, 0, 12, Optional.empty()).reReads()).isEqualTo(8);
    assertThatThrownBy(() -> new PartitionMove(tp, 1, 20, 0, 12, Optional.empty()))
        .hasMessageContaining("outside the log");
  }

  @Test
  void thePlanRendersFromToAndWarnings() {
    TopicPartition tp = new TopicPartition("orders", 0);
    ResetPlan plan =
        new ResetPlan(
            "billing",
            ResetScope.topic("orders"),
            ResetTarget.shiftBy(-100),
            List.of(new PartitionMove(tp, 50, 20, 20, 60, Optional.of("orders-0: clamped"))),
            Instant.parse("2026-11-29T12:00:00Z"));
    assertThat(plan.render())
        .contains("Plan: reset group billing --topic orders --shift-by -100")
        .containsPattern("orders\\s+0\\s+50\\s+20\\s+30\\s+0")
        .contains("WARNING orders-0: clamped");
    assertThat(plan.totalReReads()).isEqualTo(30);
  }
}
