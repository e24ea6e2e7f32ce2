package dev.courier.retry.internal;

import dev.courier.core.CourierHeaders;
import java.nio.charset.StandardCharsets;
import java.time.DateTimeException;
import java.time.Instant;
import java.util.Optional;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;

/**
 * Where a record stands on the ladder: every Courier header it carries, parsed once when it is
 * polled. Headers come from other producers and from earlier hops, so anything may be in them; a
 * value that does not parse makes the record {@link Malformed} (it goes to the DLT naming the
 * header), never an exception in the loop.
 *
 * @param originalTopic where the record first arrived (this record's topic on the main topic)
 * @param operationKey the operation key's bytes as they arrived, or null when it has none
 * @param attempt the attempt this record is on (1 on the main topic)
 * @param firstFailure when its first attempt failed, if it did
 * @param due when it may run (on a tier), if set
 * @param deadline the business deadline, if set
 */
public record LadderState(
    String originalTopic,
    int originalPartition,
    long originalOffset,
    long originalTimestamp,
    byte[] operationKey,
    int attempt,
    Optional<Instant> firstFailure,
    Optional<Instant> due,
    Optional<Instant> deadline)
    implements LadderRead {

  /** Parsing stopped at the first bad header. */
  private static final class Bad extends Exception {
    final Malformed malformed;

    Bad(Malformed malformed) {
      super(malformed.describe(), null, false, false);
      this.malformed = malformed;
    }
  }

  public LadderState {
    if (attempt < 1) {
      throw new IllegalArgumentException("attempt must be >= 1, got " + attempt);
    }
  }

  /**
   * Reads a polled record's Courier headers.
   *
   * @param tier the record's tier (0 for the main topic): a tier record without an attempt header
   *     is on attempt {@code tier + 1}
   * @param operationKeyHeader where the operation key is when Courier has not copied it yet
   * @param deadlineHeader a second header to find the business deadline in when {@code
   *     courier.deadline} is absent (the deprecated {@code retry.deadline.header})
   */
  public static LadderRead read(
      ConsumerRecord<byte[], byte[]> record,
      int tier,
      String operationKeyHeader,
      String deadlineHeader) {
    Headers h = record.headers();
    try {
      String topic = text(h, CourierHeaders.ORIGINAL_TOPIC).orElse(record.topic());
      if (topic.isBlank()) {
        throw bad(h, CourierHeaders.ORIGINAL_TOPIC, "empty");
      }
      byte[] key = CourierHeaders.operationKey(h, operationKeyHeader).orElse(null);
      return new LadderState(
          topic,
          number(h, CourierHeaders.ORIGINAL_PARTITION, 0, Integer.MAX_VALUE)
              .orElse((long) record.partition())
              .intValue(),
          number(h, CourierHeaders.ORIGINAL_OFFSET, 0, Long.MAX_VALUE).orElse(record.offset()),
          number(h, CourierHeaders.ORIGINAL_TIMESTAMP, -1, Long.MAX_VALUE)
              .orElse(record.timestamp()),
          key,
          number(h, CourierHeaders.ATTEMPT, 1, 1_000).orElse(tier + 1L).intValue(),
          time(h, CourierHeaders.FIRST_FAILURE),
          tier > 0 ? time(h, CourierHeaders.DUE) : Optional.empty(),
          deadline(h, deadlineHeader));
    } catch (Bad e) {
      return e.malformed;
    }
  }

  /**
   * A record's own coordinates and operation key, for a record whose other Courier headers cannot
   * be trusted.
   */
  public static LadderState of(ConsumerRecord<byte[], byte[]> record, String operationKeyHeader) {
    byte[] key = CourierHeaders.operationKey(record.headers(), operationKeyHeader).orElse(null);
    return new LadderState(
        record.topic(),
        record.partition(),
        record.offset(),
        record.timestamp(),
        key,
        1,
        Optional.empty(),
        Optional.empty(),
        Optional.empty());
  }

  private static Optional<Instant> deadline(Headers h, String legacyHeader) throws Bad {
    Optional<Instant> deadline = time(h, CourierHeaders.DEADLINE);
    return deadline.isPresent() || legacyHeader.equals(CourierHeaders.DEADLINE)
        ? deadline
        : time(h, legacyHeader);
  }

  /** The operation key as text, for people (invalid UTF-8 shown as replacement characters). */
  public Optional<String> operationKeyText() {
    return operationKey == null
        ? Optional.empty()
        : Optional.of(new String(operationKey, StandardCharsets.UTF_8));
  }

  /**
   * The due time a tier record carries, read as {@link #read} reads it; empty when it has none or
   * it does not parse (the loop dead-letters such a record when its turn comes).
   */
  public static Optional<Instant> due(ConsumerRecord<byte[], byte[]> record) {
    try {
      return time(record.headers(), CourierHeaders.DUE);
    } catch (Bad e) {
      return Optional.empty();
    }
  }

  private static byte[] bytes(Headers headers, String name) {
    Header h = headers.lastHeader(name);
    return h == null ? null : h.value();
  }

  private static Optional<String> text(Headers headers, String name) throws Bad {
    byte[] raw = bytes(headers, name);
    if (raw == null) {
      return Optional.empty();
    }
    Optional<String> text = Malformed.utf8(raw);
    if (text.isEmpty()) {
      throw new Bad(Malformed.of(name, raw, "not UTF-8 text"));
    }
    return text;
  }

  private static Optional<Long> number(Headers headers, String name, long min, long max)
      throws Bad {
    Optional<String> text = text(headers, name);
    if (text.isEmpty()) {
      return Optional.empty();
    }
    String v = text.get().trim();
    try {
      long n = Long.parseLong(v);
      if (n < min || n > max) {
        throw bad(headers, name, "must be in [" + min + ", " + max + "]");
      }
      return Optional.of(n);
    } catch (NumberFormatException e) {
      throw bad(headers, name, "not a whole number");
    }
  }

  /** Epoch milliseconds, or an ISO-8601 instant (what a producer may set for a deadline). */
  private static Optional<Instant> time(Headers headers, String name) throws Bad {
    Optional<String> text = text(headers, name);
    if (text.isEmpty()) {
      return Optional.empty();
    }
    String v = text.get().trim();
    try {
      if (digits(v)) {
        return Optional.of(Instant.ofEpochMilli(Long.parseLong(v)));
      }
      return Optional.of(Instant.parse(v));
    } catch (NumberFormatException | DateTimeException e) {
      throw bad(headers, name, "not epoch milliseconds or an ISO-8601 instant");
    }
  }

  private static boolean digits(String v) {
    if (v.isEmpty()) {
      return false;
    }
    for (int i = 0; i < v.length(); i++) {
      char c = v.charAt(i);
      if (c < '0' || c > '9') {
        return false;
      }
    }
    return true;
  }

  private static Bad bad(Headers headers, String name, String problem) {
    return new Bad(Malformed.of(name, bytes(headers, name), problem));
  }
}
