package dev.courier.replay;

import dev.courier.replay.internal.KafkaOffsets;
import dev.courier.replay.internal.ReplayMetrics;
import io.micrometer.core.instrument.MeterRegistry;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.MemberDescription;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Plans with Admin reads only; executes with one AlterConsumerGroupOffsets, audited around it. */
final class DefaultOffsetResetter implements OffsetResetter {

  private static final Logger LOG = LoggerFactory.getLogger(DefaultOffsetResetter.class);
  private static final Comparator<TopicPartition> ORDER =
      Comparator.comparing(TopicPartition::topic).thenComparingInt(TopicPartition::partition);

  private final KafkaOffsets kafka;
  private final AuditLog audit;
  private final Path undoDirectory;
  private final Clock clock;
  private final MeterRegistry registry;

  DefaultOffsetResetter(OffsetResetter.Builder b) {
    this.kafka = new KafkaOffsets(b.admin, Duration.ofSeconds(30));
    this.audit = b.auditLog;
    this.undoDirectory = b.undoDirectory;
    this.clock = b.clock;
    this.registry = b.meterRegistry;
  }

  @Override
  public GroupView describe(String group) {
    Optional<ConsumerGroupDescription> d = kafka.describe(group);
    Map<TopicPartition, Long> committed = kafka.committed(group);
    Map<TopicPartition, MemberDescription> owners = new HashMap<>();
    List<GroupView.Member> members = new ArrayList<>();
    for (MemberDescription m : d.map(ConsumerGroupDescription::members).orElse(List.of())) {
      members.add(
          new GroupView.Member(
              m.consumerId(), m.host(), m.clientId(), m.assignment().topicPartitions().size()));
      m.assignment().topicPartitions().forEach(tp -> owners.put(tp, m));
    }
    Set<TopicPartition> partitions = new TreeSet<>(ORDER);
    partitions.addAll(committed.keySet());
    partitions.addAll(owners.keySet());
    Map<TopicPartition, Long> ends = partitions.isEmpty() ? Map.of() : kafka.latest(partitions);
    List<GroupView.Row> rows = new ArrayList<>();
    for (TopicPartition tp : partitions) {
      long current = committed.getOrDefault(tp, -1L);
      long end = ends.get(tp);
      MemberDescription m = owners.get(tp);
      rows.add(
          new GroupView.Row(
              tp.topic(),
              tp.partition(),
              current,
              end,
              current < 0 ? -1 : Math.max(0, end - current),
              m == null ? "-" : m.consumerId(),
              m == null ? "-" : m.host(),
              m == null ? "-" : m.clientId()));
    }
    // A group that does not exist yet is described as Kafka 3 did, "Dead": its offsets can be
    // planned and set before its first consumer starts.
    return new GroupView(
        group, d.map(x -> x.groupState().toString()).orElse("Dead"), members, rows);
  }

  @Override
  public ResetPlan plan(String group, ResetScope scope, ResetTarget target) {
    Instant now = clock.instant();
    Map<TopicPartition, Long> committed = kafka.committed(group);
    Set<TopicPartition> partitions = partitionsInScope(group, scope, target, committed);
    Map<TopicPartition, Long> starts = kafka.earliest(partitions);
    Map<TopicPartition, Long> ends = kafka.latest(partitions);
    Map<TopicPartition, Long> byTime = Map.of();
    if (target instanceof ResetTarget.ToDatetime t) {
      byTime = kafka.forTime(partitions, t.at());
    } else if (target instanceof ResetTarget.ByDuration d) {
      byTime = kafka.forTime(partitions, now.minus(d.ago()));
    }
    List<PartitionMove> moves = new ArrayList<>();
    for (TopicPartition tp : partitions) {
      long from = committed.getOrDefault(tp, -1L);
      long start = starts.get(tp);
      long end = ends.get(tp);
      long requested = requested(group, tp, target, from, start, end, byTime);
      moves.add(clamp(tp, from, requested, start, end));
    }
    return new ResetPlan(group, scope, target, moves, now);
  }

  private static long requested(
      String group,
      TopicPartition tp,
      ResetTarget target,
      long from,
      long start,
      long end,
      Map<TopicPartition, Long> byTime) {
    if (target instanceof ResetTarget.ToEarliest) {
      return start;
    } else if (target instanceof ResetTarget.ToLatest) {
      return end;
    } else if (target instanceof ResetTarget.ToOffset o) {
      return o.offset();
    } else if (target instanceof ResetTarget.ShiftBy s) {
      if (from < 0) {
        throw new IllegalArgumentException(
            "cannot shift " + tp + ": group " + group + " has no committed offset there");
      }
      return from + s.delta();
    } else if (target instanceof ResetTarget.FromFile f) {
      return f.offsets().get(tp);
    }
    return orEnd(byTime.get(tp), end);
  }

  private static long orEnd(Long offset, long end) {
    // No record at or after the time: Kafka's tool moves to the log end.
    return offset == null || offset < 0 ? end : offset;
  }

  private static PartitionMove clamp(
      TopicPartition tp, long from, long requested, long start, long end) {
    if (requested < start) {
      long lost = start - Math.max(0, requested);
      String why =
          lost > 0
              ? String.format("%d record(s) are no longer available (deleted by retention)", lost)
              : "there are no records before it";
      return new PartitionMove(
          tp,
          from,
          start,
          start,
          end,
          Optional.of(
              String.format(
                  "%s: target %d is before the log start %d: %s; clamped to %d",
                  tp, requested, start, why, start)));
    }
    if (requested > end) {
      return new PartitionMove(
          tp,
          from,
          end,
          start,
          end,
          Optional.of(
              String.format(
                  "%s: target %d is beyond the log end %d; clamped to %d",
                  tp, requested, end, end)));
    }
    return new PartitionMove(tp, from, requested, start, end, Optional.empty());
  }

  private Set<TopicPartition> partitionsInScope(
      String group, ResetScope scope, ResetTarget target, Map<TopicPartition, Long> committed) {
    Set<TopicPartition> partitions = new TreeSet<>(ORDER);
    if (scope.topic().isEmpty()) {
      partitions.addAll(
          target instanceof ResetTarget.FromFile f ? f.offsets().keySet() : committed.keySet());
      if (partitions.isEmpty()) {
        throw new IllegalArgumentException(
            "group " + group + " has no committed offsets; name the topic to reset");
      }
      return partitions;
    }
    Set<TopicPartition> all = kafka.partitionsOf(scope.topic().get());
    if (scope.partitions().isEmpty()) {
      partitions.addAll(all);
    } else {
      for (int p : scope.partitions()) {
        TopicPartition tp = new TopicPartition(scope.topic().get(), p);
        if (!all.contains(tp)) {
          throw new IllegalArgumentException(
              "topic "
                  + scope.topic().get()
                  + " has no partition "
                  + p
                  + " ("
                  + all.size()
                  + " partitions)");
        }
        partitions.add(tp);
      }
    }
    if (target instanceof ResetTarget.FromFile f) {
      partitions.retainAll(f.offsets().keySet());
    }
    return partitions;
  }

  @Override
  public AuditEntry execute(ResetPlan plan, String actor, String reason) {
    AuditEntry.requireText(actor, "actor");
    AuditEntry.requireText(reason, "a reason");
    refuseIfActive(plan.group());
    Map<TopicPartition, Long> current = kafka.committed(plan.group());
    Map<TopicPartition, Long> from = new HashMap<>();
    Map<TopicPartition, Long> to = new HashMap<>();
    for (PartitionMove m : plan.moves()) {
      long now = current.getOrDefault(m.partition(), -1L);
      if (now != m.from()) {
        throw new IllegalStateException(
            "the offsets of group "
                + plan.group()
                + " moved since the plan was made ("
                + m.partition()
                + " was "
                + m.from()
                + ", is "
                + now
                + "); plan again");
      }
      from.put(m.partition(), m.from());
      to.put(m.partition(), m.to());
    }
    return apply(
        plan.group(),
        "reset",
        plan.scope() + " " + plan.target().describe(),
        from,
        to,
        Optional.empty(),
        actor,
        reason,
        current);
  }

  @Override
  public AuditEntry undo(long auditId, String actor, String reason) {
    AuditEntry.requireText(actor, "actor");
    AuditEntry.requireText(reason, "a reason");
    AuditEntry entry =
        audit
            .find(auditId)
            .orElseThrow(() -> new IllegalArgumentException("no audit entry " + auditId));
    refuseIfActive(entry.group());
    Map<TopicPartition, Long> current = kafka.committed(entry.group());
    Map<TopicPartition, Long> from = new HashMap<>();
    entry.from().keySet().forEach(tp -> from.put(tp, current.getOrDefault(tp, -1L)));
    return apply(
        entry.group(),
        "undo",
        "undo of entry " + auditId,
        from,
        entry.from(),
        Optional.of(auditId),
        actor,
        reason,
        current);
  }

  private AuditEntry apply(
      String group,
      String action,
      String target,
      Map<TopicPartition, Long> from,
      Map<TopicPartition, Long> to,
      Optional<Long> undoOf,
      String actor,
      String reason,
      Map<TopicPartition, Long> current) {
    Instant at = clock.instant();
    Path undoFile = writeUndoFile(group, at, current);
    long id =
        audit.begin(
            new AuditEntry(
                0,
                at,
                actor,
                reason,
                group,
                action,
                target,
                from,
                to,
                undoOf,
                undoFile.toString(),
                "pending"));
    try {
      Map<TopicPartition, Long> commit = new HashMap<>();
      Set<TopicPartition> remove = new HashSet<>();
      to.forEach(
          (tp, offset) -> {
            if (offset < 0) {
              remove.add(tp);
            } else {
              commit.put(tp, offset);
            }
          });
      if (!commit.isEmpty()) {
        kafka.alter(group, commit);
      }
      if (!remove.isEmpty()) {
        // The group had no offset there before: restore "none", not some offset.
        kafka.delete(group, remove);
      }
      audit.finish(id, "applied");
      ReplayMetrics.offsetChanges(registry, group, action).increment();
    } catch (RuntimeException e) {
      audit.finish(id, "failed: " + e.getMessage());
      throw e;
    }
    LOG.info(
        "{} of group {} by {} ({}): {} -> {}; audit entry {}",
        action,
        group,
        actor,
        reason,
        from,
        to,
        id);
    return audit.find(id).orElseThrow();
  }

  private void refuseIfActive(String group) {
    GroupView view = describe(group);
    if (view.active()) {
      throw new GroupActiveException(group, view.state(), view.members());
    }
  }

  private Path writeUndoFile(String group, Instant at, Map<TopicPartition, Long> current) {
    try {
      Files.createDirectories(undoDirectory);
      Path file =
          undoDirectory.resolve(
              group.replaceAll("[^A-Za-z0-9._-]", "_") + "-" + at.toEpochMilli() + ".csv");
      Files.writeString(file, OffsetCsv.write(current));
      return file;
    } catch (IOException e) {
      throw new IllegalStateException(
          "cannot write the undo file into " + undoDirectory + ": nothing was changed", e);
    }
  }
}
