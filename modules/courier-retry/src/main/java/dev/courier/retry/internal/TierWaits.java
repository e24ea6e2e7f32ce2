package dev.courier.retry.internal;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.ToIntFunction;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;

/**
 * Tier partitions whose head record is not due yet, with the records already fetched from the head
 * on held here rather than fetched again, so the loop keeps polling the others and runs a held
 * record as soon as it wakes at its due time.
 *
 * <p>Seeking back to the head and fetching it again when it falls due made every hop as late as a
 * fetch round trip (p99 55-68 ms at a 50 ms {@code fetch.max.wait.ms}). Pausing a waiting partition
 * until its held records ran out did the same for the records after them: a resumed partition is
 * fetched only once the long-polling fetch already in flight to its broker returns, up to {@code
 * fetch.max.wait.ms} later, while the records behind the held ones were falling due (p99 40-50 ms
 * in the retry benchmark, a jump at every fetch boundary). So a waiting partition is fetched
 * <i>ahead</i>: it stays unpaused while everything held falls due within the look-ahead (a fetch's
 * longest wait, twice) and fewer than the cap are held; what comes meanwhile is appended. Holding
 * is bounded by the cap plus one poll's records. The due time travels in the record and nothing
 * held is committed, so forgetting a wait (on revocation) is safe: the next owner reads the records
 * again from the committed offset.
 */
public final class TierWaits {

  /** A paused partition's records from the head on, and when the head falls due. */
  private record Wait(Instant until, long since, List<ConsumerRecord<byte[], byte[]>> held) {}

  private final Map<TopicPartition, Wait> waits = new LinkedHashMap<>();
  private final Duration lookAhead;
  private final int cap;

  /**
   * @param lookAhead how far ahead of now the last held record may fall due and the partition is
   *     still fetched
   * @param cap how many records a wait holds at most before its partition is paused
   */
  public TierWaits(Duration lookAhead, int cap) {
    if (lookAhead.isNegative() || cap < 1) {
      throw new IllegalArgumentException("look-ahead >= 0 and cap >= 1 required");
    }
    this.lookAhead = lookAhead;
    this.cap = cap;
  }

  /**
   * Holds {@code held}, the partition's records from the head that is not due on, until {@code
   * due}; the head's timestamp ages the wait. The caller pauses the partition unless {@link
   * #fetchAhead} says to go on fetching it.
   */
  public void hold(TopicPartition tp, Instant due, List<ConsumerRecord<byte[], byte[]>> held) {
    if (held.isEmpty()) {
      throw new IllegalArgumentException("a wait holds at least its head record");
    }
    // Kept as given (a view of the poll's records): re-holding the rest of 500 records one by one
    // must not copy them each time.
    waits.put(tp, new Wait(due, held.get(0).timestamp(), held));
  }

  /** Adds records fetched for a waiting partition behind those it holds, in order. */
  public void append(TopicPartition tp, List<ConsumerRecord<byte[], byte[]>> records) {
    Wait wait = waits.get(tp);
    if (wait == null) {
      throw new IllegalStateException(tp + " is not waiting");
    }
    List<ConsumerRecord<byte[], byte[]>> held =
        new ArrayList<>(wait.held().size() + records.size());
    held.addAll(wait.held());
    held.addAll(records);
    waits.put(tp, new Wait(wait.until(), wait.since(), held));
  }

  /**
   * Whether a waiting partition should be fetched now: what it holds falls due within the
   * look-ahead and is under the cap. A last record without a readable due time counts as due now
   * (the loop dead-letters it when its turn comes).
   */
  public boolean fetchAhead(TopicPartition tp, Instant now) {
    Wait wait = waits.get(tp);
    if (wait == null || wait.held().size() >= cap) {
      return false;
    }
    Instant last = LadderState.due(wait.held().get(wait.held().size() - 1)).orElse(now);
    return !last.isAfter(now.plus(lookAhead));
  }

  /** The waiting partitions, in the order they were held. */
  public Set<TopicPartition> partitions() {
    return Collections.unmodifiableSet(waits.keySet());
  }

  public boolean waiting(TopicPartition tp) {
    return waits.containsKey(tp);
  }

  /**
   * The held records of every partition whose wait is over, in the order they were held. The caller
   * handles them before it polls again, so no record of the partition overtakes one held.
   */
  public Map<TopicPartition, List<ConsumerRecord<byte[], byte[]>>> takeDue(Instant now) {
    Map<TopicPartition, List<ConsumerRecord<byte[], byte[]>>> due = new LinkedHashMap<>();
    waits.forEach(
        (tp, wait) -> {
          if (!now.isBefore(wait.until())) {
            due.put(tp, wait.held());
          }
        });
    due.keySet().forEach(waits::remove);
    return due;
  }

  public void forget(Collection<TopicPartition> partitions) {
    partitions.forEach(waits::remove);
  }

  /** At most {@code max}, and no longer than until the next paused partition is due. */
  public Duration pollTimeout(Duration max, Instant now) {
    Duration wait = max;
    for (Wait w : waits.values()) {
      Duration d = Duration.between(now, w.until());
      if (d.compareTo(wait) < 0) {
        wait = d.isNegative() ? Duration.ZERO : d;
      }
    }
    return wait;
  }

  /** Per tier, the timestamp of the oldest record waiting there. */
  public Map<Integer, Long> oldestByTier(ToIntFunction<String> tierOf) {
    Map<Integer, Long> oldest = new HashMap<>();
    waits.forEach((tp, w) -> oldest.merge(tierOf.applyAsInt(tp.topic()), w.since(), Math::min));
    return oldest;
  }
}
