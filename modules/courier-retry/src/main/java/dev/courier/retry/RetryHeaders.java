package dev.courier.retry;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;

/**
 * The headers Courier adds on every hop to a retry tier or the DLT (stable names, UTF-8 text, times
 * as epoch milliseconds). The record's own headers are kept byte for byte before them.
 */
public final class RetryHeaders {

  public static final String ORIGINAL_TOPIC = "courier.original.topic";
  public static final String ORIGINAL_PARTITION = "courier.original.partition";
  public static final String ORIGINAL_OFFSET = "courier.original.offset";
  public static final String ORIGINAL_TIMESTAMP = "courier.original.timestamp";
  public static final String OPERATION_KEY = "courier.operation.key";
  public static final String ATTEMPT = "courier.attempt";
  public static final String FIRST_FAILURE = "courier.first.failure.at";
  public static final String DUE = "courier.due.at";
  public static final String EXCEPTION = "courier.exception.class";
  public static final String CAUSE = "courier.exception.cause.class";
  public static final String MESSAGE = "courier.exception.message";
  public static final String STACK = "courier.exception.stacktrace";
  public static final String GROUP = "courier.consumer.group";
  public static final String CLASSIFICATION = "courier.classification";
  public static final String REASON = "courier.reason";
  public static final String FAILED_AT = "courier.failed.at";

  /** Set on records an operator replayed from the DLT: {@code <dlt topic>-<partition>@<offset>}. */
  public static final String REPLAY_OF = "courier.replay.of";

  /** What Courier writes on a hop; these are replaced, everything else is the record's own. */
  public static final List<String> FAILURE_HEADERS =
      List.of(
          ORIGINAL_TOPIC,
          ORIGINAL_PARTITION,
          ORIGINAL_OFFSET,
          ORIGINAL_TIMESTAMP,
          OPERATION_KEY,
          ATTEMPT,
          FIRST_FAILURE,
          DUE,
          EXCEPTION,
          CAUSE,
          MESSAGE,
          STACK,
          GROUP,
          CLASSIFICATION,
          REASON,
          FAILED_AT);

  private RetryHeaders() {}

  /** The last value of a header as text. */
  public static Optional<String> text(Headers headers, String name) {
    Header h = headers.lastHeader(name);
    return h == null || h.value() == null
        ? Optional.empty()
        : Optional.of(new String(h.value(), StandardCharsets.UTF_8));
  }

  public static Optional<Long> number(Headers headers, String name) {
    return text(headers, name).map(Long::parseLong);
  }

  /**
   * A time header: epoch milliseconds or an ISO-8601 instant (what a producer may set for the
   * deadline).
   */
  public static Optional<Instant> time(Headers headers, String name) {
    return text(headers, name)
        .map(String::trim)
        .map(
            v ->
                v.chars().allMatch(Character::isDigit)
                    ? Instant.ofEpochMilli(Long.parseLong(v))
                    : Instant.parse(v));
  }

  static byte[] bytes(Object value) {
    return String.valueOf(value).getBytes(StandardCharsets.UTF_8);
  }
}
