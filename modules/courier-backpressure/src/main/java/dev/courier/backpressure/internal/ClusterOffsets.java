package dev.courier.backpressure.internal;

import java.util.Map;
import org.apache.kafka.common.TopicPartition;

/**
 * What one round of Admin requests returned: per group its state, members and per-partition
 * committed offsets and owners; per partition the log-end offset (and the log-start offset where it
 * was needed).
 */
public record ClusterOffsets(
    Map<String, GroupOffsets> groups,
    Map<TopicPartition, Long> logEndOffsets,
    Map<TopicPartition, Long> logStartOffsets) {

  /** A member that owns a partition, as the describe output shows it. */
  public record Owner(String consumerId, String host, String clientId) {
    public static final Owner NONE = new Owner("-", "-", "-");
  }

  /** One group: committed offsets (absent when never committed) and owners per partition. */
  public record GroupOffsets(
      String group,
      String state,
      int members,
      Map<TopicPartition, Long> committed,
      Map<TopicPartition, Owner> owners) {}
}
