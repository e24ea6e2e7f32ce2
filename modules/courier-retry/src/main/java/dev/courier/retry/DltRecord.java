package dev.courier.retry;

import dev.courier.core.CourierHeaders;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;

/**
 * A dead letter: where it sits in the DLT, the original record's bytes and headers, and why it
 * failed.
 */
public record DltRecord(
    String dltTopic,
    int partition,
    long offset,
    byte[] key,
    byte[] value,
    List<Header> headers,
    String originalTopic,
    int originalPartition,
    long originalOffset,
    String reason,
    String exceptionClass,
    String message,
    int attempts,
    Instant failedAt,
    Optional<String> operationKey) {

  public DltRecord {
    headers = List.copyOf(headers);
  }

  /**
   * A record read from a dead-letter topic. Its Courier headers were written by the ladder; any
   * that do not parse read as unknown ({@code ?}, -1) rather than hide the record from operators.
   */
  public static DltRecord from(ConsumerRecord<byte[], byte[]> r) {
    Headers h = r.headers();
    List<Header> headers = new ArrayList<>();
    h.forEach(headers::add);
    return new DltRecord(
        r.topic(),
        r.partition(),
        r.offset(),
        r.key(),
        r.value(),
        headers,
        CourierHeaders.text(h, CourierHeaders.ORIGINAL_TOPIC).orElse("?"),
        (int) number(h, CourierHeaders.ORIGINAL_PARTITION, -1),
        number(h, CourierHeaders.ORIGINAL_OFFSET, -1),
        CourierHeaders.text(h, CourierHeaders.REASON).orElse("?"),
        CourierHeaders.text(h, CourierHeaders.EXCEPTION).orElse(null),
        CourierHeaders.text(h, CourierHeaders.MESSAGE).orElse(null),
        (int) number(h, CourierHeaders.ATTEMPT, 0),
        Instant.ofEpochMilli(number(h, CourierHeaders.FAILED_AT, r.timestamp())),
        CourierHeaders.text(h, CourierHeaders.OPERATION_KEY));
  }

  /**
   * The record of its key it waited behind and followed into the DLT ({@code courier.blocked.by},
   * {@code retry.ordering=key}), if it did.
   */
  public Optional<String> blockedBy() {
    return header(CourierHeaders.BLOCKED_BY);
  }

  private static long number(Headers h, String name, long unknown) {
    try {
      return CourierHeaders.text(h, name).map(String::trim).map(Long::parseLong).orElse(unknown);
    } catch (NumberFormatException e) {
      return unknown;
    }
  }

  public String coordinates() {
    return dltTopic + "-" + partition + "@" + offset;
  }

  /** The consumer group that dead-lettered it ({@code courier.consumer.group}), if named. */
  public Optional<String> group() {
    return header(CourierHeaders.GROUP);
  }

  /** A header's value as text, the last of that name, if there is one. */
  public Optional<String> header(String name) {
    for (int i = headers.size() - 1; i >= 0; i--) {
      Header h = headers.get(i);
      if (h.key().equals(name) && h.value() != null) {
        return Optional.of(new String(h.value(), StandardCharsets.UTF_8));
      }
    }
    return Optional.empty();
  }

  /** The record's own headers, without Courier's failure headers. */
  public List<Header> ownHeaders() {
    return headers.stream().filter(h -> !CourierHeaders.FAILURE_HEADERS.contains(h.key())).toList();
  }

  /**
   * The trace the dead letter belongs to (the W3C trace id of its {@code traceparent}), to look it
   * up in a tracing backend; empty when it carries none.
   */
  public Optional<String> traceId() {
    return headers.stream()
        .filter(h -> h.key().equals(CourierHeaders.TRACEPARENT) && h.value() != null)
        .reduce((a, b) -> b)
        .map(h -> new String(h.value(), StandardCharsets.UTF_8).split("-"))
        .filter(parts -> parts.length == 4 && parts[1].length() == 32)
        .map(parts -> parts[1]);
  }

  /**
   * The letter travelled without the original's value (too large with the ladder's headers): a
   * replay reads it from the original coordinates.
   */
  public boolean valueOmitted() {
    return headers.stream().anyMatch(h -> h.key().equals(CourierHeaders.PAYLOAD_OMITTED));
  }

  /** The record key as {@link #text(byte[])} shows it. */
  public String recordKeyText() {
    return key == null ? "-" : text(key);
  }

  /**
   * Bytes as an operator reads them: UTF-8 when they decode, {@code base64:...} otherwise (Avro,
   * compressed payloads), {@code (null)} for none; {@link #printable printable} either way.
   */
  public static String text(byte[] bytes) {
    if (bytes == null) {
      return "(null)";
    }
    try {
      return printable(
          StandardCharsets.UTF_8
              .newDecoder()
              .onMalformedInput(CodingErrorAction.REPORT)
              .decode(ByteBuffer.wrap(bytes))
              .toString());
    } catch (CharacterCodingException e) {
      return "base64:" + Base64.getEncoder().encodeToString(bytes);
    }
  }

  /**
   * Text from a record as a terminal should show it: shown, never run. Control characters (an
   * escape sequence that recolours, moves the cursor or sets the window title; a newline that
   * forges a line of output) and the characters that reorder text (bidirectional overrides) are
   * written as a backslash, u and four hex digits, the rest as it is.
   */
  public static String printable(String s) {
    if (s == null) {
      return "null"; // as the line showed a letter without a message before
    }
    StringBuilder out = null;
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      boolean hidden =
          Character.isISOControl(c)
              || c == '\u200e'
              || c == '\u200f'
              || (c >= '\u202a' && c <= '\u202e')
              || (c >= '\u2066' && c <= '\u2069');
      if (hidden && out == null) {
        out = new StringBuilder(s.length() + 16).append(s, 0, i);
      }
      if (hidden) {
        out.append(String.format(Locale.ROOT, "\\u%04x", (int) c));
      } else if (out != null) {
        out.append(c);
      }
    }
    return out == null ? s : out.toString();
  }

  public String render() {
    return String.format(
            Locale.ROOT,
            "%s  from %s-%d@%d  reason=%s  attempts=%d  failed=%s  operation-key=%s"
                + "  record-key=%s  %s: %s%s",
            coordinates(),
            printable(originalTopic),
            originalPartition,
            originalOffset,
            printable(reason),
            attempts,
            failedAt,
            operationKey.map(DltRecord::printable).orElse("-"),
            recordKeyText(),
            printable(exceptionClass),
            printable(message),
            valueOmitted() ? "  (value omitted: read from the original at replay)" : "")
        + traceId().map(t -> "  trace=" + printable(t)).orElse("");
  }
}
