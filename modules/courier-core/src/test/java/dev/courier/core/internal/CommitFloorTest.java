package dev.courier.core.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TimeoutException;
import org.junit.jupiter.api.Test;

class CommitFloorTest {

  private static final TopicPartition TP = new TopicPartition("orders", 0);
  private static final TopicPartition OTHER = new TopicPartition("orders", 1);

  /** Kafka's in-memory consumer, whose coordinator can be away for a read of committed offsets. */
  private static final class Consumer extends MockConsumer<byte[], byte[]> {
    private boolean coordinatorAway;

    Consumer() {
      super("earliest");
    }

    @Override
    public synchronized Map<TopicPartition, OffsetAndMetadata> committed(
        Set<TopicPartition> partitions, Duration timeout) {
      if (coordinatorAway) {
        throw new TimeoutException("coordinator away");
      }
      return super.committed(partitions, timeout);
    }
  }

  private final Consumer consumer = new Consumer();
  private final CommitFloor floor = new CommitFloor(Duration.ofSeconds(1));

  @Test
  void aHoldBelowWhatTheGroupCommittedBeforeTheAssignmentIsNotAskedFor() {
    consumer.assign(List.of(TP, OTHER));
    consumer.commitSync(Map.of(TP, new OffsetAndMetadata(100)));
    floor.assigned(consumer, List.of(TP, OTHER));

    Map<TopicPartition, OffsetAndMetadata> forward =
        floor.forward(
            consumer, Map.of(TP, new OffsetAndMetadata(40), OTHER, new OffsetAndMetadata(3)));

    assertThat(forward).containsOnlyKeys(OTHER); // TP would go back from 100 to 40
    assertThat(floor.floor(TP)).hasValue(100);
    assertThat(floor.moves(TP, 100)).isFalse();
    assertThat(floor.moves(TP, 101)).isTrue();
  }

  @Test
  void nothingBelowTheNewestAskIsAskedForEvenBeforeItIsAnswered() {
    consumer.assign(List.of(TP));
    floor.assigned(consumer, List.of(TP));
    floor.asked(Map.of(TP, new OffsetAndMetadata(50)));

    assertThat(floor.moves(TP, 49)).isFalse();
    // The same offset again: its commit may have failed and must be asked for once more.
    assertThat(floor.moves(TP, 50)).isTrue();

    floor.committed(Map.of(TP, new OffsetAndMetadata(50)));
    assertThat(floor.moves(TP, 50)).isFalse();
    assertThat(floor.moves(TP, 51)).isTrue();
  }

  @Test
  void aPartitionWhoseCommittedOffsetCannotBeReadIsNotCommittedUntilItIs() {
    consumer.assign(List.of(TP));
    consumer.commitSync(Map.of(TP, new OffsetAndMetadata(100)));
    consumer.coordinatorAway = true;
    floor.assigned(consumer, List.of(TP));

    assertThat(floor.forward(consumer, Map.of(TP, new OffsetAndMetadata(40)))).isEmpty();

    consumer.coordinatorAway = false;
    assertThat(floor.forward(consumer, Map.of(TP, new OffsetAndMetadata(40)))).isEmpty();
    assertThat(floor.forward(consumer, Map.of(TP, new OffsetAndMetadata(120))))
        .containsEntry(TP, new OffsetAndMetadata(120));
  }

  @Test
  void aPartitionAssignedAgainReadsItsFloorAgain() {
    consumer.assign(List.of(TP));
    floor.assigned(consumer, List.of(TP));
    floor.asked(Map.of(TP, new OffsetAndMetadata(80)));
    floor.forget(List.of(TP));
    // Meanwhile its other owner committed less than this member had asked for (this member's
    // commit never went through): the group's word is the floor now.
    consumer.commitSync(Map.of(TP, new OffsetAndMetadata(60)));
    floor.assigned(consumer, List.of(TP));

    assertThat(floor.floor(TP)).hasValue(60);
    assertThat(floor.moves(TP, 70)).isTrue();
  }
}
