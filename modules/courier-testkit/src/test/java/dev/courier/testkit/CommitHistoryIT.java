package dev.courier.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.api.Test;

@CourierInfraTest
class CommitHistoryIT {

  @Test
  void everyCommitOfTheGroupIsReadInOrderAndAMoveBackIsNamed(KafkaBroker kafka) {
    String topic = UniqueNames.topic("history");
    String group = UniqueNames.group("history");
    kafka.createTopic(topic, 2);
    TopicPartition p0 = new TopicPartition(topic, 0);
    TopicPartition p1 = new TopicPartition(topic, 1);
    try (KafkaConsumer<byte[], byte[]> consumer =
            new KafkaConsumer<>(
                kafka.consumerConfig(group),
                new ByteArrayDeserializer(),
                new ByteArrayDeserializer());
        KafkaConsumer<byte[], byte[]> otherGroup =
            new KafkaConsumer<>(
                kafka.consumerConfig(UniqueNames.group("other")),
                new ByteArrayDeserializer(),
                new ByteArrayDeserializer())) {
      consumer.assign(List.of(p0, p1));
      consumer.commitSync(Map.of(p0, new OffsetAndMetadata(5)));
      consumer.commitSync(Map.of(p0, new OffsetAndMetadata(10), p1, new OffsetAndMetadata(3)));
      otherGroup.assign(List.of(p0));
      otherGroup.commitSync(Map.of(p0, new OffsetAndMetadata(1)));
      consumer.commitSync(Map.of(p0, new OffsetAndMetadata(7)));
    }

    CommitHistory history = CommitHistory.of(kafka, group);

    assertThat(history.offsets(p0)).containsExactly(5L, 10L, 7L);
    assertThat(history.offsets(p1)).containsExactly(3L);
    assertThat(history.backwardMoves()).hasSize(1);
    assertThat(history.backwardMoves().get(0)).contains(p0.toString()).contains("10 -> 7");
  }
}
