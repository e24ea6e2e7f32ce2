package dev.courier.outbox.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.courier.core.internal.Traces;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.TraceFlags;
import io.opentelemetry.api.trace.TraceState;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.Scope;
import io.opentelemetry.context.propagation.ContextPropagators;
import java.io.StringWriter;
import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.api.Test;

/** The outbox's trace column in Debezium's Properties form, written and read back. */
class TraceColumnTest {

  private static final Traces W3C =
      Traces.of(
          OpenTelemetry.propagating(
              ContextPropagators.create(W3CTraceContextPropagator.getInstance())));

  @Test
  void theCallersContextIsWrittenAsPropertiesAndReadBack() {
    SpanContext span =
        SpanContext.create(
            "0af7651916cd43dd8448eb211c80319c",
            "b7ad6b7169203331",
            TraceFlags.getSampled(),
            TraceState.builder().put("rojo", "00f067aa0ba902b7").build());
    String column;
    try (Scope ignored = Span.wrap(span).makeCurrent()) {
      column = TraceColumn.capture(W3C);
    }
    assertThat(column)
        .contains("traceparent=00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01")
        .contains("tracestate=rojo=00f067aa0ba902b7");
    assertThat(TraceColumn.parse(column))
        .containsEntry("traceparent", "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01")
        .containsEntry("tracestate", "rojo=00f067aa0ba902b7");
  }

  @Test
  void noSpanNoColumnAndTracingOffCapturesNothing() {
    assertThat(TraceColumn.capture(W3C)).isNull();
    assertThat(TraceColumn.parse(null)).isEmpty();
    assertThat(TraceColumn.parse("  ")).isEmpty();
  }

  @Test
  void whatPropertiesStoreWritesWithItsEscapesReadsAsPropertiesLoadReadsIt() throws Exception {
    Properties debezium = new Properties();
    debezium.setProperty("traceparent", "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01");
    debezium.setProperty("tracestate", "rojo=00f067aa0ba902b7");
    StringWriter stored = new StringWriter();
    debezium.store(stored, null); // a date comment line, and '=' escaped in values
    Map<String, String> read = TraceColumn.parse(stored.toString());
    assertThat(read)
        .containsEntry("traceparent", "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01")
        .containsEntry("tracestate", "rojo=00f067aa0ba902b7")
        .hasSize(2);
  }
}
