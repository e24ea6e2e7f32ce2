package dev.courier.retry.internal;

import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Future;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;

/**
 * The sends the ladder's forwards still wait on, each with how many forwards wait on it and the
 * partitions whose commit it holds: whether a send is settled is one look-up, where it was a walk
 * over every forward.
 */
final class SendsInFlight {

  private final Map<Future<RecordMetadata>, Integer> waiting = new IdentityHashMap<>();
  private final Map<Future<RecordMetadata>, Set<TopicPartition>> holds = new IdentityHashMap<>();

  /** A forward waits on {@code send}. */
  void added(Future<RecordMetadata> send) {
    waiting.merge(send, 1, Integer::sum);
  }

  /** A forward that waited on {@code send} was settled. */
  void settled(Future<RecordMetadata> send) {
    if (waiting.computeIfPresent(send, (k, n) -> n > 1 ? n - 1 : null) == null) {
      holds.remove(send);
    }
  }

  /** Whether {@code send} is answered and every forward that waited on it settled. */
  boolean isSettled(Future<RecordMetadata> send) {
    return send.isDone() && !waiting.containsKey(send);
  }

  /**
   * Whether {@code send} does not hold {@code tp} yet (and now does): a partition is held at its
   * earliest record, and records come in offset order.
   */
  boolean firstHold(Future<RecordMetadata> send, TopicPartition tp) {
    return holds.computeIfAbsent(send, f -> new HashSet<>()).add(tp);
  }

  /** Every forward was settled. */
  void clear() {
    waiting.clear();
    holds.clear();
  }
}
