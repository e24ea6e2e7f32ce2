package dev.courier.replay;

import java.time.Instant;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.apache.kafka.common.TopicPartition;

/**
 * One executed offset operation: who, when, why, on which group, the offsets before and after per
 * partition (-1 before means the group had none), where the undo file went and how it ended.
 */
public record AuditEntry(
    long id,
    Instant at,
    String actor,
    String reason,
    String group,
    String action,
    String target,
    Map<TopicPartition, Long> from,
    Map<TopicPartition, Long> to,
    Optional<Long> undoOf,
    String undoFile,
    String outcome) {

  public AuditEntry {
    Objects.requireNonNull(at, "at");
    requireText(actor, "actor");
    requireText(reason, "reason");
    requireText(group, "group");
    from = Map.copyOf(from);
    to = Map.copyOf(to);
    undoOf = undoOf == null ? Optional.empty() : undoOf;
  }

  static void requireText(String value, String name) {
    if (value == null || value.isBlank()) {
      throw new IllegalArgumentException(name + " is required");
    }
  }
}
