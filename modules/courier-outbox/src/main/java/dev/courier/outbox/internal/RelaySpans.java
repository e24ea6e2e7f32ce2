package dev.courier.outbox.internal;

import dev.courier.core.CourierHeaders;
import dev.courier.core.CourierTracing;
import dev.courier.core.internal.Traces;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.Scope;
import java.nio.charset.StandardCharsets;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;

/**
 * The relay's span of each event that carries a trace context: {@code publish <topic>}, a child of
 * the writer's span, from the transaction's commit (the row's place in the WAL, as Debezium's
 * {@code db-log-write} span) to Kafka's acknowledgement. The record carries this span's context, so
 * consumers continue from the publish. Events written without a trace get no span and no header.
 */
final class RelaySpans {

  private final Traces traces;

  /** The spans of the batch being published, until acknowledged or dead-lettered. */
  private final Map<RowRouter.Publish, Span> open = new IdentityHashMap<>();

  RelaySpans(Traces traces) {
    this.traces = traces;
  }

  /** A new batch: spans a failed batch left open end as abandoned (its events are sent again). */
  void begin() {
    if (!open.isEmpty()) {
      open.values().forEach(s -> s.setAttribute(CourierTracing.OUTCOME, "abandoned").end());
      open.clear();
    }
  }

  /** Starts the event's span and writes its context onto the record, replacing the writer's. */
  void start(RowRouter.Publish event, byte[] relay) {
    ProducerRecord<byte[], byte[]> record = event.record();
    if (!traces.enabled() || record.headers().lastHeader(CourierHeaders.TRACEPARENT) == null) {
      return;
    }
    Context parent = traces.extract(record.headers());
    Span span =
        traces
            .span("publish " + record.topic(), SpanKind.PRODUCER, parent)
            .setStartTimestamp(event.commitMillis(), TimeUnit.MILLISECONDS)
            .setAttribute(CourierTracing.MESSAGING_SYSTEM, "kafka")
            .setAttribute(CourierTracing.OPERATION_TYPE, "send")
            .setAttribute(CourierTracing.OPERATION_NAME, "publish")
            .setAttribute(CourierTracing.DESTINATION, record.topic())
            .setAttribute(CourierTracing.MESSAGE_ID, event.eventId())
            .setAttribute(CourierTracing.RELAY, new String(relay, StandardCharsets.UTF_8))
            .startSpan();
    traces.inject(parent.with(span), record.headers());
    open.put(event, span);
  }

  /**
   * The event's span made current while it is handed to the producer, so an instrumented producer
   * (OpenTelemetry's agent or library) makes its send span a child of it.
   */
  Scope sending(RowRouter.Publish event) {
    Span span = open.isEmpty() ? null : open.get(event);
    return span == null ? Scope.noop() : span.makeCurrent();
  }

  void acknowledged(RowRouter.Publish event, RecordMetadata metadata) {
    Span span = open.remove(event);
    if (span != null) {
      span.setAttribute(CourierTracing.PARTITION, String.valueOf(metadata.partition()))
          .setAttribute(CourierTracing.OFFSET, metadata.offset())
          .setAttribute(CourierTracing.OUTCOME, "acknowledged")
          .end();
    }
  }

  void refused(RowRouter.Publish event, Throwable cause) {
    Span span = open.remove(event);
    if (span != null) {
      Traces.failed(span, cause);
      span.setAttribute(CourierTracing.OUTCOME, "dead-letter").end();
    }
  }
}
