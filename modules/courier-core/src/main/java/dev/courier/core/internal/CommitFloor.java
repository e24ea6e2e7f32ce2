package dev.courier.core.internal;

import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one rule every consumer Courier runs commits by: a partition's committed offset only moves
 * forward. Only an operator's reset (audited, with the group empty) moves it back.
 *
 * <p>Each partition's floor is what the group had committed when it was assigned (read then, in the
 * rebalance callback), raised by every commit asked for since. An offset below the floor is never
 * asked for: a hold on a partition (a forward on its way, a key's state not written yet) means "do
 * not advance", never "go back", and an older commit asked again after a newer one (asynchronous
 * commits answered out of turn, a rewind that re-read settled records) would move the group's
 * position back, so a crash would repeat every record since, and a key whose records were settled
 * would be read again after its later ones.
 *
 * <p>Not thread-safe: used on the consumer's thread (its poll loop and rebalance callbacks).
 */
public final class CommitFloor {

  private static final Logger LOG = LoggerFactory.getLogger(CommitFloor.class);

  /** What the group is known to have committed: read at assignment, raised by commits it took. */
  private final Map<TopicPartition, Long> committed = new HashMap<>();

  /** The newest offset asked for: an older one asked after it could be applied after it. */
  private final Map<TopicPartition, Long> asked = new HashMap<>();

  /**
   * Assigned partitions whose committed offset could not be read yet: not committed until it is.
   */
  private final Set<TopicPartition> unknown = new HashSet<>();

  /** What the group had committed when each partition was assigned, metadata included. */
  private final Map<TopicPartition, OffsetAndMetadata> atAssignment = new HashMap<>();

  private final Duration timeout;

  /** How a commit says when it was made: {@code courier.at=<epoch millis>}, its metadata. */
  private static final String AT = "courier.at=";

  /**
   * @param timeout how long one read of the group's committed offsets may take
   */
  public CommitFloor(Duration timeout) {
    this.timeout = timeout;
  }

  /**
   * Partitions assigned: their floor is the group's committed offset, read now. A read that fails
   * is tried again before the partition's first commit, which waits for it.
   */
  public void assigned(Consumer<?, ?> consumer, Collection<TopicPartition> partitions) {
    if (partitions.isEmpty()) {
      return;
    }
    partitions.forEach(
        tp -> {
          committed.remove(tp);
          asked.remove(tp);
        });
    unknown.addAll(partitions);
    read(consumer, Set.copyOf(partitions));
  }

  /**
   * Of these offsets, the ones that move their partition forward, in their order; the others are
   * left out (and stay the caller's to ask again once they do). An offset equal to the newest one
   * asked is let through: that commit may have failed and must be asked again.
   */
  public Map<TopicPartition, OffsetAndMetadata> forward(
      Consumer<?, ?> consumer, Map<TopicPartition, OffsetAndMetadata> offsets) {
    if (!unknown.isEmpty()) {
      Set<TopicPartition> needed = new HashSet<>(offsets.keySet());
      needed.retainAll(unknown);
      if (!needed.isEmpty()) {
        read(consumer, needed);
      }
    }
    Map<TopicPartition, OffsetAndMetadata> forward = new LinkedHashMap<>();
    offsets.forEach(
        (tp, o) -> {
          if (moves(tp, o.offset())) {
            forward.put(tp, o);
          }
        });
    return forward;
  }

  /** Whether committing {@code offset} moves the partition forward (or repeats the newest ask). */
  public boolean moves(TopicPartition tp, long offset) {
    if (unknown.contains(tp)) {
      return false;
    }
    Long known = committed.get(tp);
    Long newest = asked.get(tp);
    return (known == null || offset > known) && (newest == null || offset >= newest);
  }

  /** These offsets are being asked for: nothing below them is asked for after. */
  public void asked(Map<TopicPartition, OffsetAndMetadata> offsets) {
    offsets.forEach((tp, o) -> asked.merge(tp, o.offset(), Math::max));
  }

  /** The group took these offsets. */
  public void committed(Map<TopicPartition, OffsetAndMetadata> offsets) {
    offsets.forEach((tp, o) -> committed.merge(tp, o.offset(), Math::max));
  }

  /** The floor of a partition: the higher of what is committed and what was asked for. */
  public OptionalLong floor(TopicPartition tp) {
    Long known = committed.get(tp);
    Long newest = asked.get(tp);
    if (known == null && newest == null) {
      return OptionalLong.empty();
    }
    return OptionalLong.of(Math.max(known == null ? -1 : known, newest == null ? -1 : newest));
  }

  /** Partitions revoked or lost: their next assignment reads their floor again. */
  public void forget(Collection<TopicPartition> partitions) {
    partitions.forEach(
        tp -> {
          committed.remove(tp);
          asked.remove(tp);
          unknown.remove(tp);
          atAssignment.remove(tp);
        });
  }

  /**
   * These offsets, each with the time it is committed at in its metadata: the partition's next
   * owner knows from when its former owner's work may not be committed ({@link #committedAt}).
   */
  public static Map<TopicPartition, OffsetAndMetadata> stamped(
      Map<TopicPartition, OffsetAndMetadata> offsets, long nowMillis) {
    Map<TopicPartition, OffsetAndMetadata> stamped = new LinkedHashMap<>();
    offsets.forEach((tp, o) -> stamped.put(tp, new OffsetAndMetadata(o.offset(), AT + nowMillis)));
    return stamped;
  }

  /**
   * The group's commit of a partition as read at its assignment: its offset, and when it was made
   * if a Courier consumer made it ({@link #stamped}).
   */
  public Optional<OffsetAndMetadata> atAssignment(TopicPartition tp) {
    return Optional.ofNullable(atAssignment.get(tp));
  }

  /** When a commit was made, if its metadata says ({@link #stamped}). */
  public static OptionalLong committedAt(OffsetAndMetadata commit) {
    String metadata = commit.metadata();
    if (metadata == null || !metadata.startsWith(AT)) {
      return OptionalLong.empty();
    }
    try {
      return OptionalLong.of(Long.parseLong(metadata.substring(AT.length())));
    } catch (NumberFormatException e) {
      return OptionalLong.empty();
    }
  }

  private void read(Consumer<?, ?> consumer, Set<TopicPartition> partitions) {
    Map<TopicPartition, OffsetAndMetadata> found;
    try {
      found = consumer.committed(partitions, timeout);
    } catch (KafkaException e) {
      LOG.info(
          "cannot read the committed offsets of {} yet ({}); they are not committed until then",
          partitions,
          e.toString());
      return;
    }
    for (TopicPartition tp : partitions) {
      OffsetAndMetadata o = found.get(tp);
      if (o != null) {
        committed.merge(tp, o.offset(), Math::max);
        atAssignment.put(tp, o);
      }
      unknown.remove(tp);
    }
  }
}
