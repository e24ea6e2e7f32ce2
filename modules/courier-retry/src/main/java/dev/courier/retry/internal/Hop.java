package dev.courier.retry.internal;

import dev.courier.retry.Classification;
import dev.courier.retry.RetryHeaders;
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
 * byte, then the failure headers (the original coordinates carried over from the first hop).
 */
public final class Hop {

  private Hop() {}

  /** What went wrong on this hop. */
  public record Failure(
      String reason,
      int attempts,
      Instant firstFailure,
      Instant dueAt,
      Throwable error,
      Classification classification) {}

  public static ProducerRecord<byte[], byte[]> of(
      ConsumerRecord<byte[], byte[]> in,
      String toTopic,
      String group,
      String operationKeyHeader,
      Failure failure,
      Instant now,
      int maxMessageChars,
      boolean stack) {
    Headers headers = new RecordHeaders();
    for (Header h : in.headers()) {
      if (!RetryHeaders.FAILURE_HEADERS.contains(h.key())) {
        headers.add(h.key(), h.value());
      }
    }
    Headers old = in.headers();
    put(
        headers,
        RetryHeaders.ORIGINAL_TOPIC,
        RetryHeaders.text(old, RetryHeaders.ORIGINAL_TOPIC).orElse(in.topic()));
    put(
        headers,
        RetryHeaders.ORIGINAL_PARTITION,
        RetryHeaders.text(old, RetryHeaders.ORIGINAL_PARTITION)
            .orElse(String.valueOf(in.partition())));
    put(
        headers,
        RetryHeaders.ORIGINAL_OFFSET,
        RetryHeaders.text(old, RetryHeaders.ORIGINAL_OFFSET).orElse(String.valueOf(in.offset())));
    put(
        headers,
        RetryHeaders.ORIGINAL_TIMESTAMP,
        RetryHeaders.text(old, RetryHeaders.ORIGINAL_TIMESTAMP)
            .orElse(String.valueOf(in.timestamp())));
    RetryHeaders.text(old, RetryHeaders.OPERATION_KEY)
        .or(() -> RetryHeaders.text(old, operationKeyHeader))
        .ifPresent(k -> put(headers, RetryHeaders.OPERATION_KEY, k));
    put(headers, RetryHeaders.ATTEMPT, String.valueOf(failure.attempts()));
    put(headers, RetryHeaders.FIRST_FAILURE, String.valueOf(failure.firstFailure().toEpochMilli()));
    if (failure.dueAt() != null) {
      put(headers, RetryHeaders.DUE, String.valueOf(failure.dueAt().toEpochMilli()));
    }
    put(headers, RetryHeaders.FAILED_AT, String.valueOf(now.toEpochMilli()));
    put(headers, RetryHeaders.GROUP, group);
    put(headers, RetryHeaders.REASON, failure.reason());
    if (failure.classification() != null) {
      put(
          headers,
          RetryHeaders.CLASSIFICATION,
          failure.classification().failureClass() + " (" + failure.classification().rule() + ")");
    }
    Throwable error = failure.error();
    if (error != null) {
      put(headers, RetryHeaders.EXCEPTION, error.getClass().getName());
      Throwable root = error;
      while (root.getCause() != null && root.getCause() != root) {
        root = root.getCause();
      }
      if (root != error) {
        put(headers, RetryHeaders.CAUSE, root.getClass().getName());
      }
      String message = String.valueOf(error.getMessage());
      put(
          headers,
          RetryHeaders.MESSAGE,
          message.length() > maxMessageChars ? message.substring(0, maxMessageChars) : message);
      if (stack) {
        StringWriter trace = new StringWriter();
        error.printStackTrace(new PrintWriter(trace));
        String t = trace.toString();
        put(headers, RetryHeaders.STACK, t.length() > 8192 ? t.substring(0, 8192) : t);
      }
    }
    // Same partition as the original: the ladder's topics have the main topic's partition count.
    return new ProducerRecord<>(
        toTopic, in.partition(), now.toEpochMilli(), in.key(), in.value(), headers);
  }

  private static void put(Headers headers, String name, String value) {
    headers.add(name, value.getBytes(StandardCharsets.UTF_8));
  }
}
