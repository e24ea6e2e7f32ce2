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

  /**
   * On a dead letter whose value could not travel with it (too large for Kafka once the ladder's
   * headers were added): the value's size in bytes. The value itself stays at the original
   * coordinates ({@code courier.original.*}) until the main topic's retention removes it.
   */
  public static final String PAYLOAD_OMITTED = "courier.payload.omitted";

  /**
   * On a dead letter that waited behind a record of its key ({@code retry.ordering=key}) and
   * followed it into the DLT: that record's original coordinates, {@code
   * <topic>-<partition>@<offset>}.
   */
  public static final String BLOCKED_BY = "courier.blocked.by";

  /**
   * On a keyed record's hop to a tier under {@code retry.ordering=key}: {@code key}. A copy whose
   * key no longer waits for it (its head was resolved by another copy, or read again from the main
   * topic after a crash and resolved there) is not called, so a later record of its key handled
   * meanwhile is never followed by it.
   */
  public static final String ORDERING = "courier.ordering";

  /**
   * On the mark in a group's topic of blocked keys once the shared ladder's blocked keys of the
   * partition were copied into it: the shared topic's name.
   */
  public static final String ORDERING_MOVED_FROM = "courier.ordering.moved.from";

  /**
   * On every record in a group's topic of blocked keys: the consumer group generation in which the
   * writer was given the partition. Each owner marks the partition with its generation when it is
   * assigned; a later write of a lower generation comes from a member that lost the partition
   * (frozen or cut off, its producer writing when it woke) and is not read back.
   */
  public static final String ORDERING_GENERATION = "courier.ordering.generation";

  /** Set on records an operator replayed from a DLT: {@code <dlt topic>-<partition>@<offset>}. */
  public static final String REPLAY_OF = "courier.replay.of";

  /**
   * W3C Trace Context: the trace and span the record belongs to. Courier writes exactly one on
   * every record it writes (relay, ladder hops, dead letters, replays), replacing any it carried.
   */
  public static final String TRACEPARENT = "traceparent";

  /** W3C Trace Context: vendor-specific trace state, carried along with {@link #TRACEPARENT}. */
  public static final String TRACESTATE = "tracestate";

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
          FAILED_AT,
          PAYLOAD_OMITTED,
          BLOCKED_BY,
          ORDERING);

  /**
   * What one header is, for people: docs/headers.md is generated from {@link #ALL}.
   *
   * @param name the header's name
   * @param writtenBy the components that write it
   * @param readBy the components that read it
   * @param format its value's format
   * @param meaning what it says
   */
  public record Spec(String name, String writtenBy, String readBy, String format, String meaning) {}

  private static final String LADDER = "retry ladder (on every hop to a tier or the DLT)";
  private static final String DLT_TOOLS = "`courier dlt`, `DltReplayer`, `DltRecord`";

  /** Every header above, in the order docs/headers.md lists them. */
  public static final List<Spec> ALL =
      List.of(
          new Spec(
              ID,
              "outbox relay (the event id); any producer",
              "idempotent store and retry ladder, as the operation key unless "
                  + OPERATION_KEY
                  + " is there",
              "text (the outbox writes a UUID)",
              "The operation key; Debezium EventRouter's name for the event id."),
          new Spec(TYPE, "outbox relay", "consumers", "text", "The outbox event's type."),
          new Spec(
              CONTENT_TYPE,
              "outbox relay",
              "consumers",
              "media type",
              "The payload's media type, e.g. application/json or application/avro."),
          new Spec(
              DEADLINE,
              "outbox relay (from the row's deadline); any producer",
              "retry ladder",
              "epoch millis, or an ISO-8601 instant",
              "The business deadline: the ladder never runs a record past it (it goes to the DLT"
                  + " as expired)."),
          new Spec(
              REASON,
              LADDER + "; outbox relay (dead letters)",
              DLT_TOOLS + ", dashboards",
              "a short stable word (permanent, attempts-exhausted, deadline, expired, elapsed,"
                  + " malformed-headers, forward-refused, retry)",
              "Why the record left its topic."),
          new Spec(
              RELAY,
              "outbox relay (every record, dead letters included)",
              "operators",
              "<outbox.relay.name>@<host>/<pid>#<incarnation>",
              "The relay and leadership term that published an outbox event."),
          new Spec(
              ORIGINAL_TOPIC,
              LADDER,
              "retry ladder, " + DLT_TOOLS,
              "text",
              "The topic the record first arrived on."),
          new Spec(
              ORIGINAL_PARTITION,
              LADDER,
              "retry ladder, " + DLT_TOOLS,
              "decimal",
              "Its partition there."),
          new Spec(
              ORIGINAL_OFFSET,
              LADDER,
              "retry ladder, " + DLT_TOOLS,
              "decimal",
              "Its offset there."),
          new Spec(
              ORIGINAL_TIMESTAMP,
              LADDER,
              "retry ladder, " + DLT_TOOLS,
              "epoch millis",
              "Its timestamp there."),
          new Spec(
              OPERATION_KEY,
              LADDER + ", copied from the header the consumer reads",
              "idempotent store, retry ladder, HTTP handler (first, before the configured"
                  + " header)",
              "bytes as they arrived (UTF-8 text in practice)",
              "The operation key carried along the ladder, so tiers, the DLT and replays keep"
                  + " it."),
          new Spec(
              ATTEMPT,
              LADDER,
              "retry ladder",
              "decimal, 1 for the first call",
              "The attempt the record is on (in the DLT: the calls it had)."),
          new Spec(
              FIRST_FAILURE,
              LADDER,
              "retry ladder (retry.max.elapsed.ms counts from it)",
              "epoch millis",
              "When its first attempt failed."),
          new Spec(
              DUE,
              LADDER + " (tiers only)",
              "retry ladder",
              "epoch millis",
              "When the record may run at its tier; it is never run earlier."),
          new Spec(FAILED_AT, LADDER, DLT_TOOLS, "epoch millis", "When this hop was written."),
          new Spec(
              EXCEPTION,
              LADDER,
              DLT_TOOLS,
              "a class name",
              "The handler's exception (absent when the record never ran)."),
          new Spec(CAUSE, LADDER, DLT_TOOLS, "a class name", "The root cause's class, if another."),
          new Spec(
              MESSAGE,
              LADDER,
              DLT_TOOLS,
              "text, cut to retry.exception.message.max.chars",
              "The exception's message, or why the record was not run."),
          new Spec(
              STACK,
              LADDER + " (with retry.exception.stacktrace=true)",
              DLT_TOOLS,
              "text, cut to 8 KiB",
              "The stack trace."),
          new Spec(
              GROUP,
              LADDER + "; `DltReplayer` on a replay into the group's ladder",
              DLT_TOOLS
                  + " (a replay goes to this group's ladder), the ladder (in a tier of the shared"
                  + " ladder, it handles only its own group's records)",
              "text",
              "The consumer group that failed the record."),
          new Spec(
              CLASSIFICATION,
              LADDER,
              DLT_TOOLS,
              "<class> (<rule>), e.g. TRANSIENT (SQLTransientException)",
              "How the failure was classified, and by which rule."),
          new Spec(
              PAYLOAD_OMITTED,
              LADDER + " (dead letters of reason forward-refused only)",
              DLT_TOOLS,
              "decimal: the omitted value's size in bytes",
              "The dead letter carries no value: with the ladder's headers it was too large for"
                  + " Kafka; the value stays at the original coordinates."),
          new Spec(
              BLOCKED_BY,
              LADDER + " (with retry.ordering=key: reasons waiting-behind, ordering-overflow)",
              DLT_TOOLS,
              "<topic>-<partition>@<offset>",
              "The record of the same key this one waited behind, which went to the DLT first"
                  + " (or, for ordering-overflow, which it would have waited behind)."),
          new Spec(
              ORDERING,
              "retry ladder (a keyed record's hop to a tier, with retry.ordering=key)",
              "retry ladder",
              "key",
              "The hop was made under key order: a copy its key no longer waits for (its head"
                  + " already resolved by another copy, or read again from the main topic after a"
                  + " crash) is committed past without a call."),
          new Spec(
              ORDERING_MOVED_FROM,
              "retry ladder (in <topic>.<group>.retry.blocked, once per partition)",
              "retry ladder",
              "the shared ladder's <topic>.retry.blocked",
              "A group's ladder copied the shared ladder's blocked keys of the partition into its"
                  + " own topic before this mark: from here on only its own topic is read."),
          new Spec(
              ORDERING_GENERATION,
              "retry ladder (every record in <topic>.<group>.retry.blocked)",
              "retry ladder (when a partition's blocked keys are read back)",
              "decimal: the consumer group generation in which the writer was given the partition",
              "Fences a former owner's late writes: a key's state written with a lower generation"
                  + " than a mark or write before it is not read back, and the new owner writes"
                  + " the key's state again."),
          new Spec(
              TRACEPARENT,
              "outbox relay (from the row's tracingspancontext), retry ladder (each hop: the"
                  + " attempt that failed), `DltReplayer` (the replay span); any traced producer",
              "every Courier consumer (its span is the record's child); OpenTelemetry's and"
                  + " Spring Kafka's instrumentation",
              "W3C Trace Context: 00-<trace id>-<span id>-<flags>",
              "The span the record continues. One per record: Courier replaces it, never appends"
                  + " a second."),
          new Spec(
              TRACESTATE,
              "as " + TRACEPARENT + ", when the trace has state",
              "as " + TRACEPARENT,
              "W3C Trace Context tracestate",
              "Vendor-specific trace state, carried along with " + TRACEPARENT + "."),
          new Spec(
              REPLAY_OF,
              "`DltReplayer` (`courier dlt replay`)",
              "consumers, operators",
              "<dlt topic>-<partition>@<offset>",
              "The dead letter a replayed record came from."));

  private CourierHeaders() {}

  /**
   * A record's operation key, resolved as every Courier consumer resolves it: {@link
   * #OPERATION_KEY} when the ladder has carried it (a retried, dead-lettered or replayed record),
   * else the last {@code header} (by default {@link #ID}, where the outbox writes the event id).
   * Empty when neither has a non-empty value.
   */
  public static Optional<byte[]> operationKey(Headers headers, String header) {
    for (String name : new String[] {OPERATION_KEY, header}) {
      Header h = headers.lastHeader(name);
      if (h != null && h.value() != null && h.value().length > 0) {
        return Optional.of(h.value());
      }
    }
    return Optional.empty();
  }

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
