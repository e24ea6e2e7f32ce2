package dev.courier.retry.internal;

import dev.courier.core.CourierHeaders;
import dev.courier.retry.Classification;
import dev.courier.retry.RetryTopics;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeaders;

/**
 * Builds the record for the next tier or the DLT: the original key, value and own headers byte for
 * byte, then the failure headers, written from the record's parsed {@link LadderState} (the
 * original coordinates carried over from the first hop).
 */
public final class Hop {

  private static final int MAX_STACK_CHARS = 8192;

  private Hop() {}

  /**
   * What went wrong on this hop.
   *
   * @param error the handler's failure; null when the record was not executed (expired, malformed)
   * @param message the message to record instead of the error's (e.g. what is malformed), or null
   */
  public record Failure(
      String reason,
      int attempts,
      Instant firstFailure,
      Instant dueAt,
      Throwable error,
      String message,
      Classification classification,
      String blockedBy) {

    /** A failed call that goes to the next tier, due at {@code dueAt}. */
    public static Failure retry(
        int attempts, Instant firstFailure, Instant dueAt, Throwable error, Classification c) {
      return new Failure("retry", attempts, firstFailure, dueAt, error, null, c, null);
    }

    /** A failed call that goes to the DLT for {@code reason}. */
    public static Failure failed(
        String reason, int attempts, Instant firstFailure, Throwable error, Classification c) {
      return new Failure(reason, attempts, firstFailure, null, error, null, c, null);
    }

    /** A record parked without a call, for {@code reason}; {@code message} says why, or null. */
    public static Failure notExecuted(
        String reason, int attempts, Instant firstFailure, String message) {
      return new Failure(reason, attempts, firstFailure, null, null, message, null, null);
    }

    /**
     * A record parked without a call because of the record of its key it waited behind ({@code
     * <topic>-<partition>@<offset>}), for {@code reason}.
     */
    public static Failure behind(String reason, String blockedBy, Instant at, String message) {
      return new Failure(reason, 0, at, null, null, message, null, blockedBy);
    }

    /** What the log says of it. */
    public String describe() {
      return message != null ? message : error == null ? "not executed" : error.toString();
    }
  }

  public static ProducerRecord<byte[], byte[]> of(
      ConsumerRecord<byte[], byte[]> in,
      LadderState state,
      String toTopic,
      String group,
      Failure failure,
      Instant now,
      int maxMessageChars,
      boolean stack,
      boolean ordered) {
    Headers headers = new RecordHeaders();
    for (Header h : in.headers()) {
      if (!CourierHeaders.FAILURE_HEADERS.contains(h.key())) {
        headers.add(h.key(), h.value());
      }
    }
    put(headers, CourierHeaders.ORIGINAL_TOPIC, state.originalTopic());
    put(headers, CourierHeaders.ORIGINAL_PARTITION, String.valueOf(state.originalPartition()));
    put(headers, CourierHeaders.ORIGINAL_OFFSET, String.valueOf(state.originalOffset()));
    put(headers, CourierHeaders.ORIGINAL_TIMESTAMP, String.valueOf(state.originalTimestamp()));
    if (state.operationKey() != null) {
      headers.add(CourierHeaders.OPERATION_KEY, state.operationKey());
    }
    put(headers, CourierHeaders.ATTEMPT, String.valueOf(failure.attempts()));
    put(
        headers,
        CourierHeaders.FIRST_FAILURE,
        String.valueOf(failure.firstFailure().toEpochMilli()));
    if (failure.dueAt() != null) {
      put(headers, CourierHeaders.DUE, String.valueOf(failure.dueAt().toEpochMilli()));
    }
    put(headers, CourierHeaders.FAILED_AT, String.valueOf(now.toEpochMilli()));
    put(headers, CourierHeaders.GROUP, group);
    put(headers, CourierHeaders.REASON, failure.reason());
    if (failure.blockedBy() != null) {
      put(headers, CourierHeaders.BLOCKED_BY, failure.blockedBy());
    }
    if (ordered) {
      put(headers, CourierHeaders.ORDERING, "key");
    }
    if (failure.classification() != null) {
      put(
          headers,
          CourierHeaders.CLASSIFICATION,
          failure.classification().failureClass() + " (" + failure.classification().rule() + ")");
    }
    Throwable error = failure.error();
    if (error != null) {
      put(headers, CourierHeaders.EXCEPTION, error.getClass().getName());
      Throwable root = error;
      while (root.getCause() != null && root.getCause() != root) {
        root = root.getCause();
      }
      if (root != error) {
        put(headers, CourierHeaders.CAUSE, root.getClass().getName());
      }
    }
    String message =
        failure.message() != null
            ? failure.message()
            : error != null ? String.valueOf(error.getMessage()) : null;
    if (message != null) {
      put(headers, CourierHeaders.MESSAGE, cut(message, maxMessageChars));
    }
    if (error != null && stack) {
      StringWriter trace = new StringWriter();
      error.printStackTrace(new PrintWriter(trace));
      put(headers, CourierHeaders.STACK, cut(trace.toString(), MAX_STACK_CHARS));
    }
    // Same partition as the original: the ladder's topics have the main topic's partition count.
    return new ProducerRecord<>(
        toTopic, in.partition(), now.toEpochMilli(), in.key(), in.value(), headers);
  }

  private static String cut(String text, int max) {
    return text.length() > max ? text.substring(0, max) : text;
  }

  private static void put(Headers headers, String name, String value) {
    headers.add(name, value.getBytes(StandardCharsets.UTF_8));
  }

  /** The letter without the value that made it too large; its size goes in a header. */
  public static ProducerRecord<byte[], byte[]> withoutValue(
      ProducerRecord<byte[], byte[]> letter, ConsumerRecord<byte[], byte[]> record) {
    ProducerRecord<byte[], byte[]> bare =
        new ProducerRecord<>(
            letter.topic(),
            letter.partition(),
            letter.timestamp(),
            letter.key(),
            null,
            letter.headers());
    int size = record.value() == null ? 0 : record.value().length;
    bare.headers()
        .add(CourierHeaders.PAYLOAD_OMITTED, String.valueOf(size).getBytes(StandardCharsets.UTF_8));
    return bare;
  }

  /**
   * Whether a hop of {@code record} to {@code topic} is one its key waits for under key order: a
   * keyed record from the main topic, or a copy that was one itself. A tier's record that never was
   * in a chain (a replay, a hop from before key order) says nothing, or the next tier would take it
   * for a copy nobody waits for and not call it.
   */
  static boolean keyWaits(ConsumerRecord<byte[], byte[]> record, RetryTopics topics, String topic) {
    return record.key() != null
        && topics.tierOf(topic) > 0
        && (topics.tierOf(record.topic()) == 0
            || record.headers().lastHeader(CourierHeaders.ORDERING) != null);
  }
}
