package dev.courier.backpressure.internal;

import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.TopicPartition;

/**
 * What one round of Admin requests returned: per group its state, members and per-partition
 * committed offsets and owners; per partition the log-end offset (and the log-start offset where it
 * was needed); and for groups and partitions that could not be answered for, why not.
 */
public record ClusterOffsets(
    Map<String, GroupOffsets> groups,
    Map<TopicPartition, Long> logEndOffsets,
    Map<TopicPartition, Long> logStartOffsets,
    Map<String, String> groupProblems,
    Map<TopicPartition, String> partitionProblems) {

  /** A member that owns a partition, as the describe output shows it. */
  public record Owner(String consumerId, String host, String clientId) {
    public static final Owner NONE = new Owner("-", "-", "-");
  }

  /** A member and the partitions assigned to it. */
  public record Assignment(Owner owner, Set<TopicPartition> partitions) {}

  /** One group: its committed offsets (none for a partition never committed) and its members. */
  public record GroupOffsets(
      String group,
      String state,
      int members,
      CommittedOffsets committed,
      List<Assignment> assignments) {}
}
