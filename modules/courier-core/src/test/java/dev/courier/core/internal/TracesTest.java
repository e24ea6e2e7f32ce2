package dev.courier.core.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.TraceFlags;
import io.opentelemetry.api.trace.TraceState;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.propagation.ContextPropagators;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.junit.jupiter.api.Test;

/** Trace context on Kafka headers: one traceparent, replaced; nothing at all when off. */
class TracesTest {

  private static final Traces W3C =
      Traces.of(
          OpenTelemetry.propagating(
              ContextPropagators.create(W3CTraceContextPropagator.getInstance())));

  private static final SpanContext SPAN =
      SpanContext.create(
          "0af7651916cd43dd8448eb211c80319c",
          "b7ad6b7169203331",
          TraceFlags.getSampled(),
          TraceState.getDefault());

  @Test
  void injectReplacesEveryTraceparentTheRecordCarriedWithOne() {
    RecordHeaders headers = new RecordHeaders();
    headers.add("traceparent", bytes("00-aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa-bbbbbbbbbbbbbbbb-01"));
    headers.add("traceparent", bytes("00-cccccccccccccccccccccccccccccccc-dddddddddddddddd-01"));
    headers.add("id", bytes("op-1"));
    W3C.inject(Context.root().with(Span.wrap(SPAN)), headers);
    assertThat(values(headers, "traceparent"))
        .containsExactly("00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01");
    assertThat(values(headers, "id")).containsExactly("op-1");
  }

  @Test
  void extractReadsTheLastTraceparent() {
    RecordHeaders headers = new RecordHeaders();
    headers.add("traceparent", bytes("00-aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa-bbbbbbbbbbbbbbbb-01"));
    headers.add("traceparent", bytes("00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"));
    SpanContext read = Span.fromContext(W3C.extract(headers)).getSpanContext();
    assertThat(read.getTraceId()).isEqualTo(SPAN.getTraceId());
    assertThat(read.isRemote()).isTrue();
  }

  @Test
  void offItStartsNoSpanWritesNothingAndReadsNothing() {
    RecordHeaders headers = new RecordHeaders();
    headers.add("traceparent", bytes("00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"));
    assertThat(Traces.NONE.enabled()).isFalse();
    assertThat(Span.fromContext(Traces.NONE.extract(headers)).getSpanContext().isValid()).isFalse();
    Traces.NONE.inject(Context.root().with(Span.wrap(SPAN)), new RecordHeaders());
    ConsumerRecord<String, String> record = new ConsumerRecord<>("t", 0, 0L, "k", "v");
    assertThat(Traces.NONE.process(record, "g").getSpanContext().isValid()).isFalse();
    assertThat(Traces.of(null)).isSameAs(Traces.NONE);
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static List<String> values(RecordHeaders headers, String name) {
    List<String> out = new ArrayList<>();
    for (Header h : headers.headers(name)) {
      out.add(new String(h.value(), StandardCharsets.UTF_8));
    }
    return out;
  }
}
