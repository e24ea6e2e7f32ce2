package dev.courier.retry.internal;

import java.util.List;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;

/**
 * Consecutive records of one partition whose calls went to the handler thread together, settled in
 * order: a record is done (and its offset may be committed) only once every record before it is.
 */
public final class Run {

  final TopicPartition tp;
  final List<ConsumerRecord<byte[], byte[]>> records;
  final List<RecordStep> steps;
  final List<HandlerCalls.Call> calls;

  /** When its steps were decided (a parked record's failure time). */
  final java.time.Instant decidedAt;

  /**
   * Records released from a key's chain ({@code retry.ordering=key}): read before, their offsets
   * committed when they began to wait, so settling them commits nothing.
   */
  final boolean released;

  /** The next step to settle, and the call of the next {@link RecordStep.Call}. */
  int next;

  int nextCall;

  /** Settled as far as it goes by a rebalance callback while the loop waited for a call. */
  boolean finished;

  public Run(
      TopicPartition tp,
      List<ConsumerRecord<byte[], byte[]>> records,
      List<RecordStep> steps,
      List<HandlerCalls.Call> calls,
      java.time.Instant decidedAt) {
    this(tp, records, steps, calls, decidedAt, false);
  }

  public Run(
      TopicPartition tp,
      List<ConsumerRecord<byte[], byte[]>> records,
      List<RecordStep> steps,
      List<HandlerCalls.Call> calls,
      java.time.Instant decidedAt,
      boolean released) {
    this.released = released;
    this.tp = tp;
    this.records = records;
    this.steps = steps;
    this.calls = calls;
    this.decidedAt = decidedAt;
  }

  /** How many of its records are settled. */
  public int settled() {
    return next;
  }

  ConsumerRecord<byte[], byte[]> record() {
    return records.get(next);
  }

  RecordStep step() {
    return steps.get(next);
  }

  boolean hasNext() {
    return next < steps.size();
  }

  HandlerCalls.Call call() {
    return calls.get(nextCall);
  }

  /** No call of the run from the next one on that has not started yet will start. */
  void cancelRest() {
    if (nextCall < calls.size()) {
      calls.get(nextCall).cancelFromHere();
    }
  }
}
