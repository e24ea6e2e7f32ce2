package dev.courier.cli;

import dev.courier.core.CourierTracing;

/**
 * {@code docs/trace-attributes.md}, generated from {@link CourierTracing#SPANS} and {@link
 * CourierTracing#ATTRIBUTES}: every span Courier starts and every attribute it sets. {@code
 * TracingReferenceTest} fails when the file differs.
 */
final class TracingReference {

  private TracingReference() {}

  static String markdown() {
    StringBuilder out = new StringBuilder();
    out.append("# Spans and attributes reference\n\n")
        .append("Generated from `CourierTracing` in courier-core (do not edit: run `mvn -pl")
        .append(" modules/courier-cli test -Dtest=TracingReferenceTest")
        .append(" -Dcourier.docs.write=true`).\n")
        .append("Instrumentation scope: `")
        .append(CourierTracing.SCOPE)
        .append("`. How tracing is switched on and what it shows: [tracing.md](tracing.md).\n\n")
        .append("## Spans\n\n")
        .append("| name | kind | started by | parent | covers |\n")
        .append("|---|---|---|---|---|\n");
    for (CourierTracing.SpanSpec span : CourierTracing.SPANS) {
      out.append("| `")
          .append(HeadersReference.cell(span.name()))
          .append("` | ")
          .append(span.kind())
          .append(" | ")
          .append(HeadersReference.cell(span.startedBy()))
          .append(" | ")
          .append(HeadersReference.cell(span.parent()))
          .append(" | ")
          .append(HeadersReference.cell(span.extent()))
          .append(" |\n");
    }
    out.append("\n## Attributes\n\n")
        .append("| attribute | type | on | meaning |\n")
        .append("|---|---|---|---|\n");
    for (CourierTracing.Attribute a : CourierTracing.ATTRIBUTES) {
      out.append("| `")
          .append(a.key().getKey())
          .append("` | ")
          .append(a.key().getType().name().toLowerCase(java.util.Locale.ROOT))
          .append(" | ")
          .append(HeadersReference.cell(a.spans()))
          .append(" | ")
          .append(HeadersReference.cell(a.meaning()))
          .append(" |\n");
    }
    return out.toString();
  }
}
