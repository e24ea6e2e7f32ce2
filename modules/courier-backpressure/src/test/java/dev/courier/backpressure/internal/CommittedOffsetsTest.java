package dev.courier.backpressure.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

class CommittedOffsetsTest {

  @Test
  void keepsEveryCommittedOffsetAndNoneOfTheNullOnes() {
    Map<TopicPartition, OffsetAndMetadata> admin = new HashMap<>();
    for (int p = 99; p >= 0; p -= 3) {
      admin.put(new TopicPartition("orders", p), new OffsetAndMetadata(1_000L + p, "meta"));
    }
    admin.put(new TopicPartition("orders", 1), null);
    admin.put(new TopicPartition("payments", 7), new OffsetAndMetadata(Long.MAX_VALUE - 1));
    admin.put(new TopicPartition("payments", 0), new OffsetAndMetadata(0));
    admin.put(new TopicPartition("never", 0), null);

    CommittedOffsets committed = CommittedOffsets.of(admin, new HashMap<>());

    assertThat(committed.size()).isEqualTo(34 + 2);
    for (int p = 0; p < 100; p++) {
      long expected = p % 3 == 0 ? 1_000L + p : -1;
      assertThat(committed.offset(new TopicPartition("orders", p)))
          .as("orders-" + p)
          .isEqualTo(expected);
    }
    assertThat(committed.offset(new TopicPartition("payments", 7))).isEqualTo(Long.MAX_VALUE - 1);
    assertThat(committed.offset(new TopicPartition("payments", 0))).isZero();
    assertThat(committed.offset(new TopicPartition("payments", 3))).isEqualTo(-1);
    assertThat(committed.offset(new TopicPartition("never", 0))).isEqualTo(-1);
    assertThat(committed.offset(new TopicPartition("unknown", 0))).isEqualTo(-1);
  }

  @Test
  void visitsEachTopicsPartitionsInOrder() {
    Map<TopicPartition, OffsetAndMetadata> admin = new HashMap<>();
    int[] partitions = {5, 0, 12, 3, 40_000, 7};
    for (int p : partitions) {
      admin.put(new TopicPartition("t", p), new OffsetAndMetadata(p * 10L));
    }
    List<String> seen = new ArrayList<>();
    CommittedOffsets.of(admin, new HashMap<>())
        .forEach((tp, offset) -> seen.add(tp.topic() + "-" + tp.partition() + "@" + offset));

    assertThat(seen)
        .containsExactly("t-0@0", "t-3@30", "t-5@50", "t-7@70", "t-12@120", "t-40000@400000");
    assertThat(CommittedOffsets.of(Map.of(), new HashMap<>()).size()).isZero();
    assertThat(CommittedOffsets.NONE.offset(new TopicPartition("t", 0))).isEqualTo(-1);
  }

  /** Two groups on the same partitions share the tick's partition objects, one per partition. */
  @Test
  void groupsShareOnePartitionObjectPerPartition() {
    Map<TopicPartition, TopicPartition> canonical = new HashMap<>();
    CommittedOffsets billing =
        CommittedOffsets.of(
            Map.of(new TopicPartition("orders", 0), new OffsetAndMetadata(5)), canonical);
    CommittedOffsets analytics =
        CommittedOffsets.of(
            Map.of(new TopicPartition("orders", 0), new OffsetAndMetadata(9)), canonical);
    List<TopicPartition> seen = new ArrayList<>();
    billing.forEach((tp, offset) -> seen.add(tp));
    analytics.forEach((tp, offset) -> seen.add(tp));

    assertThat(seen).hasSize(2);
    assertThat(seen.get(0)).isSameAs(seen.get(1));
    assertThat(analytics.offset(new TopicPartition("orders", 0))).isEqualTo(9);
    assertThat(canonical).hasSize(1);
  }
}
