package dev.courier.testkit;

import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.trace.SpanId;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.propagation.ContextPropagators;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import io.opentelemetry.sdk.trace.samplers.Sampler;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Predicate;
import java.util.stream.Collectors;

/**
 * OpenTelemetry's SDK recording every span in memory (its own {@link InMemorySpanExporter}, every
 * span sampled, W3C propagation), for tests and the lab: what Courier's components and
 * OpenTelemetry's own instrumentation record, read back and drawn as a tree.
 */
public final class TraceRecorder implements AutoCloseable {

  private final InMemorySpanExporter exporter = InMemorySpanExporter.create();
  private final OpenTelemetrySdk sdk;

  public TraceRecorder() {
    this.sdk =
        OpenTelemetrySdk.builder()
            .setTracerProvider(
                SdkTracerProvider.builder()
                    .setSampler(Sampler.alwaysOn())
                    .addSpanProcessor(SimpleSpanProcessor.create(exporter))
                    .build())
            .setPropagators(ContextPropagators.create(W3CTraceContextPropagator.getInstance()))
            .build();
  }

  public OpenTelemetry openTelemetry() {
    return sdk;
  }

  /** Every span ended so far. */
  public List<SpanData> spans() {
    return exporter.getFinishedSpanItems();
  }

  /** The ended spans of one trace, in start order. */
  public List<SpanData> trace(String traceId) {
    return spans().stream()
        .filter(s -> s.getTraceId().equals(traceId))
        .sorted(Comparator.comparingLong(SpanData::getStartEpochNanos))
        .toList();
  }

  /** The first ended span the condition accepts (in start order). */
  public Optional<SpanData> first(Predicate<SpanData> condition) {
    return spans().stream()
        .filter(condition)
        .min(Comparator.comparingLong(SpanData::getStartEpochNanos));
  }

  /** The spans the condition accepts, in start order. */
  public List<SpanData> all(Predicate<SpanData> condition) {
    return spans().stream()
        .filter(condition)
        .sorted(Comparator.comparingLong(SpanData::getStartEpochNanos))
        .toList();
  }

  /**
   * A trace drawn as a tree, one span a line: name, milliseconds after the trace's first span
   * started, duration, and the attributes {@code shown} (those a span has).
   */
  public String tree(String traceId, List<String> shown) {
    List<SpanData> spans = trace(traceId);
    if (spans.isEmpty()) {
      return "(no span of trace " + traceId + ")";
    }
    long origin = spans.get(0).getStartEpochNanos();
    Map<String, List<SpanData>> children =
        spans.stream().collect(Collectors.groupingBy(SpanData::getParentSpanId));
    List<String> ids = spans.stream().map(SpanData::getSpanId).toList();
    StringBuilder out = new StringBuilder("trace " + traceId + System.lineSeparator());
    for (SpanData root : spans) {
      if (!ids.contains(root.getParentSpanId()) || !SpanId.isValid(root.getParentSpanId())) {
        draw(root, children, origin, shown, "", out);
      }
    }
    return out.toString();
  }

  private static void draw(
      SpanData span,
      Map<String, List<SpanData>> children,
      long origin,
      List<String> shown,
      String indent,
      StringBuilder out) {
    List<String> attributes = new ArrayList<>();
    span.getAttributes()
        .forEach(
            (k, v) -> {
              if (shown.contains(k.getKey())) {
                attributes.add(k.getKey() + "=" + v);
              }
            });
    out.append(indent)
        .append(indent.isEmpty() ? "" : "└─ ")
        .append(span.getName())
        .append(
            String.format(
                "  +%d ms, %d ms",
                (span.getStartEpochNanos() - origin) / 1_000_000,
                (span.getEndEpochNanos() - span.getStartEpochNanos()) / 1_000_000))
        .append(span.getStatus().getStatusCode().name().equals("ERROR") ? "  ERROR" : "")
        .append(attributes.isEmpty() ? "" : "  " + String.join(" ", attributes))
        .append(System.lineSeparator());
    for (SpanData child : children.getOrDefault(span.getSpanId(), List.of())) {
      draw(child, children, origin, shown, indent.isEmpty() ? "  " : indent + "   ", out);
    }
  }

  @Override
  public void close() {
    sdk.close();
  }
}
