package dev.courier.retry.internal;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.LongPredicate;
import org.apache.kafka.common.TopicPartition;

/**
 * Keys whose chain went (drained or parked), each with the highest offset the chain held, until the
 * partition is committed past it: a record of the key read again before then (a restart, a commit
 * that did not happen) was handled, parked or waited already and must not be called. Written to
 * Kafka as the key's state in place of a tombstone, so the next owner knows it too. A key whose
 * chain went to the DLT with what waited ({@code park}) also keeps who it waited behind, so a
 * record that was to wait behind it follows it there.
 */
final class DoneMarks {

  private final Map<TopicPartition, Map<ChainKey, Long>> marks = new HashMap<>();
  private final Map<TopicPartition, Map<ChainKey, String>> parkedBehind = new HashMap<>();

  /** The key's mark, if it has one. */
  Long upTo(TopicPartition tp, ChainKey key) {
    Map<ChainKey, Long> of = marks.get(tp);
    return of == null ? null : of.get(key);
  }

  /** The key's chain went, holding records up to {@code upTo}. */
  long mark(TopicPartition tp, ChainKey key, long upTo) {
    return marks.computeIfAbsent(tp, t -> new HashMap<>()).merge(key, upTo, Math::max);
  }

  /** The key's chain went to the DLT with what waited behind {@code blocker}. */
  void parked(TopicPartition tp, ChainKey key, String blocker) {
    parkedBehind.computeIfAbsent(tp, t -> new HashMap<>()).put(key, blocker);
  }

  Optional<String> parkedBehind(TopicPartition tp, ChainKey key) {
    Map<ChainKey, String> of = parkedBehind.get(tp);
    return of == null ? Optional.empty() : Optional.ofNullable(of.get(key));
  }

  /** A new chain of the key takes its mark over: the mark goes, its offset returned. */
  Long take(TopicPartition tp, ChainKey key) {
    Map<ChainKey, String> blockers = parkedBehind.get(tp);
    if (blockers != null) {
      blockers.remove(key);
    }
    Map<ChainKey, Long> of = marks.get(tp);
    return of == null ? null : of.remove(key);
  }

  /**
   * The partition is committed up to {@code offset}: marks of offsets before it can no longer be
   * read again, and go.
   *
   * @return the keys whose mark went (their state becomes a tombstone)
   */
  List<ChainKey> committed(TopicPartition tp, long offset) {
    return drop(tp, upTo -> upTo < offset);
  }

  /** The partition's marks as read back from Kafka, replacing what was held. */
  void restore(TopicPartition tp, Map<ChainKey, Long> restored) {
    marks.put(tp, new HashMap<>(restored));
    parkedBehind.remove(tp);
  }

  void forget(Collection<TopicPartition> partitions) {
    partitions.forEach(marks::remove);
    partitions.forEach(parkedBehind::remove);
  }

  private List<ChainKey> drop(TopicPartition tp, LongPredicate which) {
    Map<ChainKey, Long> of = marks.get(tp);
    if (of == null) {
      return List.of();
    }
    List<ChainKey> gone = new ArrayList<>();
    of.entrySet()
        .removeIf(
            e -> {
              if (which.test(e.getValue())) {
                gone.add(e.getKey());
                return true;
              }
              return false;
            });
    Map<ChainKey, String> blockers = parkedBehind.get(tp);
    if (blockers != null) {
      gone.forEach(blockers::remove);
    }
    return gone;
  }
}
