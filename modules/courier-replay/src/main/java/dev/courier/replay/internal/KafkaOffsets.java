package dev.courier.replay.internal;

import dev.courier.core.internal.KafkaFutures;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.TopicPartition;

/** The Admin calls offset operations need, each one batched request, with a bounded wait. */
public final class KafkaOffsets {

  private final Admin admin;
  private final Duration timeout;

  public KafkaOffsets(Admin admin, Duration timeout) {
    this.admin = admin;
    this.timeout = timeout;
  }

  /**
   * The group as the coordinator describes it; empty for a group that does not exist (yet): Kafka 4
   * answers GROUP_ID_NOT_FOUND where Kafka 3 described an empty, "Dead" group.
   */
  public java.util.Optional<ConsumerGroupDescription> describe(String group) {
    try {
      return java.util.Optional.of(
          await(admin.describeConsumerGroups(List.of(group)).all()).get(group));
    } catch (IllegalStateException e) {
      if (e.getCause() instanceof org.apache.kafka.common.errors.GroupIdNotFoundException) {
        return java.util.Optional.empty();
      }
      throw e;
    }
  }

  /** Committed offsets of the group; partitions without one are left out. */
  public Map<TopicPartition, Long> committed(String group) {
    Map<TopicPartition, OffsetAndMetadata> raw;
    try {
      raw = await(admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata());
    } catch (IllegalStateException e) {
      if (e.getCause() instanceof org.apache.kafka.common.errors.GroupIdNotFoundException) {
        return Map.of(); // a group that does not exist yet has committed nothing
      }
      throw e;
    }
    Map<TopicPartition, Long> offsets = new HashMap<>();
    raw.forEach(
        (tp, om) -> {
          if (om != null) {
            offsets.put(tp, om.offset());
          }
        });
    return offsets;
  }

  public Set<TopicPartition> partitionsOf(String topic) {
    TopicDescription d = await(admin.describeTopics(List.of(topic)).allTopicNames()).get(topic);
    Set<TopicPartition> partitions =
        new TreeSet<>(
            java.util.Comparator.comparing(TopicPartition::topic)
                .thenComparingInt(TopicPartition::partition));
    d.partitions().forEach(p -> partitions.add(new TopicPartition(topic, p.partition())));
    return partitions;
  }

  public Map<TopicPartition, Long> earliest(Collection<TopicPartition> partitions) {
    return list(partitions, OffsetSpec.earliest());
  }

  public Map<TopicPartition, Long> latest(Collection<TopicPartition> partitions) {
    return list(partitions, OffsetSpec.latest());
  }

  /**
   * The first offset whose timestamp is at or after {@code at} per partition, or -1 where no record
   * is that new (Kafka's ListOffsets by timestamp).
   */
  public Map<TopicPartition, Long> forTime(Collection<TopicPartition> partitions, Instant at) {
    return list(partitions, OffsetSpec.forTimestamp(at.toEpochMilli()));
  }

  public void alter(String group, Map<TopicPartition, Long> offsets) {
    Map<TopicPartition, OffsetAndMetadata> om = new HashMap<>();
    offsets.forEach((tp, o) -> om.put(tp, new OffsetAndMetadata(o)));
    await(admin.alterConsumerGroupOffsets(group, om).all());
  }

  public void delete(String group, Set<TopicPartition> partitions) {
    await(admin.deleteConsumerGroupOffsets(group, partitions).all());
  }

  public void deleteTopics(Collection<String> topics) {
    await(admin.deleteTopics(topics).all());
  }

  public Set<String> topics() {
    return await(admin.listTopics().names());
  }

  private Map<TopicPartition, Long> list(Collection<TopicPartition> partitions, OffsetSpec spec) {
    Map<TopicPartition, OffsetSpec> request = new HashMap<>();
    partitions.forEach(tp -> request.put(tp, spec));
    Map<TopicPartition, Long> offsets = new HashMap<>();
    await(admin.listOffsets(request).all()).forEach((tp, info) -> offsets.put(tp, info.offset()));
    return offsets;
  }

  private <T> T await(KafkaFuture<T> future) {
    return KafkaFutures.await(future, timeout);
  }
}
