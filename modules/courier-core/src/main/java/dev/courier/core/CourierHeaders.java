package dev.courier.core;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;

/**
 * Every Kafka header name Courier reads or writes, in one place (as Spring Kafka's {@code
 * KafkaHeaders}). Values are UTF-8 text; times are epoch milliseconds unless a header says
 * otherwise.
 *
 * <p>Vocabulary: the <b>operation key</b> is the stable key of one piece of work, chosen by whoever
 * created it; the outbox's <b>event id</b> is an operation key (a UUID, name-based when built from
 * an operation key) and travels in the {@link #ID} header, which is where consumers look for the
 * operation key by default.
 */
public final class CourierHeaders {

  /** The operation key (the outbox writes the event id here): Debezium EventRouter's name. */
  public static final String ID = "id";

  /** The outbox event's type (EventRouter's {@code type} column). */
  public static final String TYPE = "type";

  /** The payload's media type, e.g. {@code application/json} or {@code application/avro}. */
  public static final String CONTENT_TYPE = "content-type";

  /**
   * The business deadline of the work: epoch millis or an ISO-8601 instant. The retry ladder never
   * runs a record past it (it is dead-lettered as {@code expired}).
   */
  public static final String DEADLINE = "courier.deadline";

  /** Why a record was dead-lettered, a short stable word such as {@code permanent}. */
  public static final String REASON = "courier.reason";

  /** The relay instance that published an outbox event (name and incarnation). */
  public static final String RELAY = "courier.relay";

  // The retry ladder's headers, written on every hop to a tier or the dead-letter topic.

  public static final String ORIGINAL_TOPIC = "courier.original.topic";
  public static final String ORIGINAL_PARTITION = "courier.original.partition";
  public static final String ORIGINAL_OFFSET = "courier.original.offset";
  public static final String ORIGINAL_TIMESTAMP = "courier.original.timestamp";

  /** The operation key carried along the ladder, copied from the header the consumer reads. */
  public static final String OPERATION_KEY = "courier.operation.key";

  /** The attempt the record is on (1 for the first call of the handler). */
  public static final String ATTEMPT = "courier.attempt";

  public static final String FIRST_FAILURE = "courier.first.failure.at";
  public static final String DUE = "courier.due.at";
  public static final String FAILED_AT = "courier.failed.at";
  public static final String EXCEPTION = "courier.exception.class";
  public static final String CAUSE = "courier.exception.cause.class";
  public static final String MESSAGE = "courier.exception.message";
  public static final String STACK = "courier.exception.stacktrace";
  public static final String GROUP = "courier.consumer.group";
  public static final String CLASSIFICATION = "courier.classification";

  /** Set on records an operator replayed from a DLT: {@code <dlt topic>-<partition>@<offset>}. */
  public static final String REPLAY_OF = "courier.replay.of";

  /** What the ladder writes on a hop; these are replaced, everything else is the record's own. */
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

  private CourierHeaders() {}

  /**
   * The last value of a header as UTF-8 text (bytes that are not UTF-8 show as replacement
   * characters): for people and handlers, not for parsing Courier's own headers.
   */
  public static Optional<String> text(Headers headers, String name) {
    Header h = headers.lastHeader(name);
    return h == null || h.value() == null
        ? Optional.empty()
        : Optional.of(new String(h.value(), StandardCharsets.UTF_8));
  }
}
