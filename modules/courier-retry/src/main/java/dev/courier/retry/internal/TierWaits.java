package dev.courier.retry.internal;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.ToIntFunction;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.common.TopicPartition;

/**
 * Tier partitions whose head record is not due yet: paused until it is, so the loop keeps polling
 * the others. The due time travels in the record, so forgetting a wait (on revocation) is safe: the
 * next owner reads it again.
 */
public final class TierWaits {

  private final Map<TopicPartition, Instant> until = new HashMap<>();
  private final Map<TopicPartition, Long> since = new HashMap<>();

  /** Pauses the partition until {@code due}; {@code recordTimestamp} ages the wait. */
  public void pause(Consumer<?, ?> consumer, TopicPartition tp, Instant due, long recordTimestamp) {
    consumer.pause(List.of(tp));
    until.put(tp, due);
    since.put(tp, recordTimestamp);
  }

  public boolean waiting(TopicPartition tp) {
    return until.containsKey(tp);
  }

  /** Resumes the partitions that are due. */
  public void resumeDue(Consumer<?, ?> consumer, Instant now) {
    List<TopicPartition> due = new ArrayList<>();
    until.forEach(
        (tp, at) -> {
          if (!now.isBefore(at)) {
            due.add(tp);
          }
        });
    if (!due.isEmpty()) {
      forget(due);
      consumer.resume(due);
    }
  }

  public void forget(Collection<TopicPartition> partitions) {
    partitions.forEach(
        tp -> {
          until.remove(tp);
          since.remove(tp);
        });
  }

  /** At most {@code max}, and no longer than until the next paused partition is due. */
  public Duration pollTimeout(Duration max, Instant now) {
    Duration wait = max;
    for (Instant at : until.values()) {
      Duration d = Duration.between(now, at);
      if (d.compareTo(wait) < 0) {
        wait = d.isNegative() ? Duration.ZERO : d;
      }
    }
    return wait;
  }

  /** Per tier, the timestamp of the oldest record waiting there. */
  public Map<Integer, Long> oldestByTier(ToIntFunction<String> tierOf) {
    Map<Integer, Long> oldest = new HashMap<>();
    since.forEach((tp, ts) -> oldest.merge(tierOf.applyAsInt(tp.topic()), ts, Math::min));
    return oldest;
  }
}
