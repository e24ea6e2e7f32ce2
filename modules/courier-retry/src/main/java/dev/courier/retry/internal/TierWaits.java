package dev.courier.retry.internal;

import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.ToIntFunction;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;

/**
 * Tier partitions whose head record is not due yet, paused by the loop until it is so that it keeps
 * polling the others, with the records already fetched from the head on held here rather than
 * fetched again.
 *
 * <p>Seeking back to the head and fetching it again when it falls due made every hop as late as a
 * fetch round trip (up to {@code fetch.max.wait.ms}, p99 55-68 ms at Courier's 50 ms); a held
 * record runs as soon as the loop wakes at its due time. Holding is bounded by what one poll
 * returned ({@code max.poll.records}). The due time travels in the record and nothing held is
 * committed, so forgetting a wait (on revocation) is safe: the next owner reads the records again
 * from the committed offset.
 */
public final class TierWaits {

  /** A paused partition's records from the head on, and when the head falls due. */
  private record Wait(Instant until, long since, List<ConsumerRecord<byte[], byte[]>> held) {}

  private final Map<TopicPartition, Wait> waits = new LinkedHashMap<>();

  /**
   * Holds {@code held}, the partition's records from the head that is not due on, until {@code
   * due}; the head's timestamp ages the wait. The caller pauses the partition.
   */
  public void hold(TopicPartition tp, Instant due, List<ConsumerRecord<byte[], byte[]>> held) {
    if (held.isEmpty()) {
      throw new IllegalArgumentException("a wait holds at least its head record");
    }
    // Kept as given (a view of the poll's records): re-holding the rest of 500 records one by one
    // must not copy them each time.
    waits.put(tp, new Wait(due, held.get(0).timestamp(), held));
  }

  public boolean waiting(TopicPartition tp) {
    return waits.containsKey(tp);
  }

  /**
   * The held records of every partition whose wait is over, in the order they were held. Their
   * partitions stay paused: the caller resumes each once its held records are done without a new
   * wait, so no record of the partition overtakes one held.
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
