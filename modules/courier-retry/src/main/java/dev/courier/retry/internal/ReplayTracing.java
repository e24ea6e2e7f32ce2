package dev.courier.retry.internal;

import dev.courier.core.CourierTracing;
import dev.courier.core.internal.Traces;
import dev.courier.retry.DltRecord;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.context.Context;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeaders;

/**
 * The span of one replayed dead letter: {@code replay <dlt>}, linked to the dead letter's trace and
 * its child unless the operator's own context is current (then the replay joins that trace and the
 * link leads to the original). The replayed record carries this span's context, so its next attempt
 * continues from the replay.
 */
public final class ReplayTracing {

  private final Traces traces;

  public ReplayTracing(Traces traces) {
    this.traces = traces;
  }

  /**
   * Starts the span and writes its context onto the record, replacing the one the dead letter had;
   * {@link Span#getInvalid()} when tracing is off (the record keeps the dead letter's context).
   */
  public Span start(
      ProducerRecord<byte[], byte[]> record,
      DltRecord letter,
      String actor,
      String reason,
      long auditId) {
    if (!traces.enabled()) {
      return Span.getInvalid();
    }
    Headers carried = new RecordHeaders();
    letter.ownHeaders().forEach(h -> carried.add(h.key(), h.value()));
    Context original = traces.extract(carried);
    Context current = Context.current();
    boolean operatorTraced = Span.fromContext(current).getSpanContext().isValid();
    var builder =
        traces
            .span(
                "replay " + letter.dltTopic(),
                SpanKind.PRODUCER,
                operatorTraced ? current : original)
            .setAttribute(CourierTracing.MESSAGING_SYSTEM, "kafka")
            .setAttribute(CourierTracing.OPERATION_TYPE, "send")
            .setAttribute(CourierTracing.OPERATION_NAME, "replay")
            .setAttribute(CourierTracing.DESTINATION, record.topic())
            .setAttribute(CourierTracing.REPLAY_OF, letter.coordinates())
            .setAttribute(CourierTracing.REPLAY_ACTOR, actor)
            .setAttribute(CourierTracing.REPLAY_REASON, reason)
            .setAttribute(CourierTracing.REPLAY_AUDIT_ID, auditId);
    if (Span.fromContext(original).getSpanContext().isValid()) {
      builder.addLink(Span.fromContext(original).getSpanContext());
    }
    Span span = builder.startSpan();
    traces.inject(Context.root().with(span), record.headers());
    return span;
  }
}
