package dev.courier.replay;

import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * A dry run's answer: what {@link OffsetResetter#execute} would do, partition by partition. Nothing
 * has changed when you hold one.
 */
public record ResetPlan(
    String group,
    ResetScope scope,
    ResetTarget target,
    List<PartitionMove> moves,
    Instant plannedAt) {

  public ResetPlan {
    Objects.requireNonNull(group, "group");
    Objects.requireNonNull(scope, "scope");
    Objects.requireNonNull(target, "target");
    moves = List.copyOf(moves);
    Objects.requireNonNull(plannedAt, "plannedAt");
  }

  public List<String> warnings() {
    return moves.stream().flatMap(m -> m.warning().stream()).toList();
  }

  public long totalReReads() {
    return moves.stream().mapToLong(PartitionMove::reReads).sum();
  }

  /** The plan as a table, like Kafka's dry run plus the from column and records to re-read. */
  public String render() {
    StringBuilder out = new StringBuilder();
    out.append(
        String.format(
            Locale.ROOT,
            "Plan: reset group %s %s %s (planned %s)%n",
            group,
            scope,
            target.describe(),
            plannedAt));
    out.append(
        String.format(
            Locale.ROOT,
            "%-30s %-10s %-12s %-12s %-10s %-10s%n",
            "TOPIC",
            "PARTITION",
            "FROM",
            "TO",
            "RE-READS",
            "SKIPS"));
    for (PartitionMove m : moves) {
      out.append(
          String.format(
              Locale.ROOT,
              "%-30s %-10d %-12s %-12d %-10d %-10d%n",
              m.partition().topic(),
              m.partition().partition(),
              m.from() < 0 ? "-" : String.valueOf(m.from()),
              m.to(),
              m.reReads(),
              m.skips()));
    }
    warnings().forEach(w -> out.append("WARNING ").append(w).append(System.lineSeparator()));
    return out.toString();
  }
}
