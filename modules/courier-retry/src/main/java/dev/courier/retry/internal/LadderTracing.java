package dev.courier.retry.internal;

import dev.courier.core.CourierTracing;
import dev.courier.core.internal.Traces;
import dev.courier.retry.Classification;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.Scope;
import java.time.Duration;
import java.util.Collection;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Headers;

/**
 * One span per attempt, in the record's trace: {@code process <topic>} starts when the handler
 * thread takes the call, is current while the handler runs (so what the handler does is its child),
 * and ends once the loop has decided the record's next step, with the attempt, the tier, the
 * classification, the delay and the topic it went to. Every hop (tier, DLT) carries the attempt's
 * context as its one {@code traceparent}, so the next attempt is the failed one's child and the
 * whole ladder stays one trace. Off ({@link Traces#NONE}), the handler's work is run as it is and
 * each hop keeps the {@code traceparent} it arrived with.
 */
public final class LadderTracing {

  public static final LadderTracing NONE = new LadderTracing(Traces.NONE, "");

  private final Traces traces;
  private final String group;

  /** Attempts started and not settled yet, by record (identity: one record, one attempt). */
  private final Map<ConsumerRecord<byte[], byte[]>, Span> open =
      Collections.synchronizedMap(new IdentityHashMap<>());

  public LadderTracing(Traces traces, String group) {
    this.traces = traces;
    this.group = group;
  }

  /** The handler's work for this attempt, run inside the attempt's span. */
  public HandlerCalls.Work around(
      ConsumerRecord<byte[], byte[]> record, LadderState state, int tier, HandlerCalls.Work work) {
    if (!traces.enabled()) {
      return work;
    }
    return () -> {
      Span span = start(record, state, tier);
      try (Scope ignored = span.makeCurrent()) {
        work.run();
      }
    };
  }

  /**
   * The attempt's span: the one its call started, or one started now for a record settled without a
   * call (refused by the deserializer, parked).
   */
  void attempt(ConsumerRecord<byte[], byte[]> record, LadderState state, int tier) {
    if (traces.enabled() && !open.containsKey(record)) {
      start(record, state, tier);
    }
  }

  private Span start(ConsumerRecord<byte[], byte[]> record, LadderState state, int tier) {
    Span span = traces.process(record, group);
    if (state != null) {
      span.setAttribute(CourierTracing.ATTEMPT, (long) state.attempt());
      state.operationKeyText().ifPresent(k -> span.setAttribute(CourierTracing.OPERATION_KEY, k));
    }
    span.setAttribute(CourierTracing.TIER, (long) Math.max(tier, 0));
    open.put(record, span);
    return span;
  }

  /** Writes the attempt's context onto the record's next hop, replacing the one it carried. */
  void inject(ConsumerRecord<byte[], byte[]> record, Headers hop) {
    Span span = traces.enabled() ? open.get(record) : null;
    if (span != null) {
      traces.inject(Context.root().with(span), hop);
    }
  }

  /**
   * The attempt's span made current while its hop is handed to the producer, so an instrumented
   * producer makes its send span the attempt's child.
   */
  Scope sending(ConsumerRecord<byte[], byte[]> record) {
    Span span = traces.enabled() ? open.get(record) : null;
    return span == null ? Scope.noop() : span.makeCurrent();
  }

  void succeeded(ConsumerRecord<byte[], byte[]> record) {
    Span span = open.remove(record);
    if (span != null) {
      span.setAttribute(CourierTracing.OUTCOME, "succeeded").end();
    }
  }

  void retried(
      ConsumerRecord<byte[], byte[]> record,
      Throwable error,
      Classification classification,
      String tierTopic,
      Duration delay) {
    Span span = open.remove(record);
    if (span != null) {
      Traces.failed(span, error);
      span.setAttribute(CourierTracing.OUTCOME, "retry")
          .setAttribute(CourierTracing.CLASSIFICATION, describe(classification))
          .setAttribute(CourierTracing.DELAY_MS, Math.max(0, delay.toMillis()))
          .setAttribute(CourierTracing.NEXT_TOPIC, tierTopic)
          .end();
    }
  }

  void deadLettered(
      ConsumerRecord<byte[], byte[]> record,
      Throwable error,
      Classification classification,
      String reason,
      String dlt) {
    Span span = open.remove(record);
    if (span != null) {
      if (error != null) {
        Traces.failed(span, error);
      }
      if (classification != null) {
        span.setAttribute(CourierTracing.CLASSIFICATION, describe(classification));
      }
      span.setAttribute(CourierTracing.OUTCOME, "dead-letter")
          .setAttribute(CourierTracing.DLT_REASON, reason)
          .setAttribute(CourierTracing.NEXT_TOPIC, dlt)
          .end();
    }
  }

  /**
   * The partitions went away with attempts unsettled: their spans end as abandoned (the next owner
   * reads those records again, in new attempts).
   */
  void abandon(Collection<TopicPartition> partitions) {
    if (open.isEmpty()) {
      return;
    }
    synchronized (open) {
      open.entrySet()
          .removeIf(
              e -> {
                ConsumerRecord<byte[], byte[]> r = e.getKey();
                boolean gone =
                    partitions == null
                        || partitions.contains(new TopicPartition(r.topic(), r.partition()));
                if (gone) {
                  e.getValue().setAttribute(CourierTracing.OUTCOME, "abandoned").end();
                }
                return gone;
              });
    }
  }

  private static String describe(Classification c) {
    return c.failureClass() + " (" + c.rule() + ")";
  }
}
