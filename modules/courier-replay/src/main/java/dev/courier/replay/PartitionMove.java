package dev.courier.replay;

import java.util.Objects;
import java.util.Optional;
import org.apache.kafka.common.TopicPartition;

/**
 * One partition of a reset plan: from the committed offset (-1 when the group has none) to the new
 * one, the partition's log start and end when planned, how many records the group will read again
 * (or skip), and a warning when the target was clamped into the retained log.
 */
public record PartitionMove(
    TopicPartition partition,
    long from,
    long to,
    long logStart,
    long logEnd,
    Optional<String> warning) {

  public PartitionMove {
    Objects.requireNonNull(partition, "partition");
    warning = warning == null ? Optional.empty() : warning;
    if (to < logStart || to > logEnd) {
      throw new IllegalArgumentException(
          partition + ": target " + to + " outside the log [" + logStart + ", " + logEnd + "]");
    }
  }

  /** Records the group will read again: from the new offset to its old one. */
  public long reReads() {
    return from < 0 ? logEnd - to : Math.max(0, from - to);
  }

  /** Records the group will not read at all. */
  public long skips() {
    return from < 0 ? 0 : Math.max(0, to - from);
  }
}
