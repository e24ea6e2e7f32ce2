package dev.courier.cli;

import dev.courier.core.CourierHeaders;

/**
 * {@code docs/headers.md}, generated from {@link CourierHeaders#ALL}: every header Courier writes
 * or reads, who writes it, who reads it, and its format. {@code HeadersReferenceTest} fails when
 * the file differs.
 */
final class HeadersReference {

  private HeadersReference() {}

  static String markdown() {
    StringBuilder out = new StringBuilder();
    out.append("# Headers reference\n\n")
        .append("Generated from `CourierHeaders.ALL` in courier-core (do not edit: run `mvn -pl")
        .append(" modules/courier-cli test -Dtest=HeadersReferenceTest")
        .append(" -Dcourier.docs.write=true`).\n")
        .append("Values are UTF-8 text. On a hop to a retry tier or the DLT the ladder replaces")
        .append(" its own headers\nand keeps every other header of the record byte for byte.\n\n")
        .append("| header | written by | read by | format | meaning |\n")
        .append("|---|---|---|---|---|\n");
    for (CourierHeaders.Spec h : CourierHeaders.ALL) {
      out.append("| `")
          .append(h.name())
          .append("` | ")
          .append(cell(h.writtenBy()))
          .append(" | ")
          .append(cell(h.readBy()))
          .append(" | ")
          .append(cell(h.format()))
          .append(" | ")
          .append(cell(h.meaning()))
          .append(" |\n");
    }
    return out.toString();
  }

  /** A markdown table cell: pipes escaped, angle brackets as entities. */
  static String cell(String text) {
    return text.replace("|", "\\|").replace("<", "&lt;").replace(">", "&gt;");
  }
}
