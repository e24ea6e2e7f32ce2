package dev.courier.outbox.internal;

import dev.courier.core.internal.Traces;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.context.Context;
import java.io.IOException;
import java.io.StringReader;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Properties;

/**
 * The outbox's {@code tracingspancontext} column: the writer's trace context as {@link Properties}
 * text ({@code traceparent=00-...}), as Debezium's outbox extension writes it and its {@code
 * ActivateTracingSpan} reads it.
 */
public final class TraceColumn {

  private TraceColumn() {}

  /** The caller's current context, or null when it has no valid span (nothing to continue). */
  public static String capture(Traces traces) {
    Context current = Context.current();
    if (!Span.fromContext(current).getSpanContext().isValid()) {
      return null;
    }
    StringBuilder text = new StringBuilder();
    traces.inject(current).forEach((k, v) -> text.append(k).append('=').append(v).append('\n'));
    return text.length() == 0 ? null : text.toString();
  }

  /** The column's entries; empty for null or text that is not properties. */
  public static Map<String, String> parse(String column) {
    Map<String, String> entries = new LinkedHashMap<>();
    if (column == null || column.isBlank()) {
      return entries;
    }
    if (column.indexOf('\\') < 0) {
      // What the writer stores, and what Properties.store writes for a W3C context, has no
      // escapes: split the lines here (Properties.load was a tenth of the relay's tracing cost).
      for (String line : column.split("\n")) {
        int eq = line.indexOf('=');
        if (eq > 0 && line.charAt(0) != '#' && line.charAt(0) != '!') {
          entries.put(line.substring(0, eq).trim(), line.substring(eq + 1).trim());
        }
      }
      return entries;
    }
    Properties properties = new Properties();
    try {
      properties.load(new StringReader(column));
    } catch (IOException | IllegalArgumentException e) {
      return entries; // a malformed context is no context: the event still goes out
    }
    properties.forEach((k, v) -> entries.put(String.valueOf(k), String.valueOf(v)));
    return entries;
  }
}
