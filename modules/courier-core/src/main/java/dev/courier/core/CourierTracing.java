package dev.courier.core;

import io.opentelemetry.api.common.AttributeKey;
import java.util.List;

/**
 * What Courier's spans are called and which attributes they carry, in one place: docs/tracing.md
 * lists {@link #SPANS} and {@link #ATTRIBUTES} as declared here. Messaging attributes follow
 * OpenTelemetry's semantic conventions for Kafka, so a backend that knows those shows Courier's
 * spans as it shows those of OpenTelemetry's own Kafka instrumentation.
 */
public final class CourierTracing {

  /** The instrumentation scope of every span Courier starts. */
  public static final String SCOPE = "dev.courier";

  /**
   * The outbox column the caller's trace context is written to, in {@link java.util.Properties}
   * form ({@code traceparent=...}): Debezium's name and format for it.
   */
  public static final String OUTBOX_COLUMN = "tracingspancontext";

  public static final AttributeKey<String> MESSAGING_SYSTEM =
      AttributeKey.stringKey("messaging.system");
  public static final AttributeKey<String> OPERATION_TYPE =
      AttributeKey.stringKey("messaging.operation.type");
  public static final AttributeKey<String> OPERATION_NAME =
      AttributeKey.stringKey("messaging.operation.name");
  public static final AttributeKey<String> DESTINATION =
      AttributeKey.stringKey("messaging.destination.name");
  public static final AttributeKey<String> PARTITION =
      AttributeKey.stringKey("messaging.destination.partition.id");
  public static final AttributeKey<Long> OFFSET = AttributeKey.longKey("messaging.kafka.offset");
  public static final AttributeKey<String> CONSUMER_GROUP =
      AttributeKey.stringKey("messaging.consumer.group.name");
  public static final AttributeKey<String> MESSAGE_ID =
      AttributeKey.stringKey("messaging.message.id");
  public static final AttributeKey<String> ERROR_TYPE = AttributeKey.stringKey("error.type");

  public static final AttributeKey<String> OPERATION_KEY =
      AttributeKey.stringKey("courier.operation.key");
  public static final AttributeKey<String> OUTCOME = AttributeKey.stringKey("courier.outcome");
  public static final AttributeKey<String> RELAY = AttributeKey.stringKey("courier.relay");
  public static final AttributeKey<Long> ATTEMPT = AttributeKey.longKey("courier.retry.attempt");
  public static final AttributeKey<Long> TIER = AttributeKey.longKey("courier.retry.tier");
  public static final AttributeKey<String> CLASSIFICATION =
      AttributeKey.stringKey("courier.retry.classification");
  public static final AttributeKey<Long> DELAY_MS = AttributeKey.longKey("courier.retry.delay_ms");
  public static final AttributeKey<String> NEXT_TOPIC =
      AttributeKey.stringKey("courier.retry.next_topic");
  public static final AttributeKey<String> DLT_REASON =
      AttributeKey.stringKey("courier.dlt.reason");
  public static final AttributeKey<String> REPLAY_OF = AttributeKey.stringKey("courier.replay.of");
  public static final AttributeKey<String> REPLAY_ACTOR =
      AttributeKey.stringKey("courier.replay.actor");
  public static final AttributeKey<String> REPLAY_REASON =
      AttributeKey.stringKey("courier.replay.reason");
  public static final AttributeKey<Long> REPLAY_AUDIT_ID =
      AttributeKey.longKey("courier.replay.audit_id");

  /** One kind of span Courier starts, for people: docs/trace-attributes.md lists {@link #SPANS}. */
  public record SpanSpec(
      String name, String kind, String startedBy, String parent, String extent) {}

  /** Every span Courier starts. */
  public static final List<SpanSpec> SPANS =
      List.of(
          new SpanSpec(
              "publish <topic>",
              "PRODUCER",
              "outbox relay, for an event whose row has a trace context",
              "the writer's span (the row's " + OUTBOX_COLUMN + ")",
              "from the transaction's commit to Kafka's acknowledgement (or the dead letter)"),
          new SpanSpec(
              "process <topic>",
              "CONSUMER",
              "retry ladder, one per attempt (main topic, each tier)",
              "the record's traceparent: the publish, or the attempt that failed before",
              "the handler's call (current while it runs) and the decision that follows"),
          new SpanSpec(
              "process <topic>",
              "CONSUMER",
              "idempotent consumer, one per record",
              "the record's traceparent",
              "the effect and the dedupe record's transaction (current while it runs)"),
          new SpanSpec(
              "replay <dlt>",
              "PRODUCER",
              "DltReplayer (`courier dlt replay`), one per dead letter replayed",
              "the operator's current span, else the dead letter's traceparent; linked to the"
                  + " dead letter's",
              "the send of the replayed record"));

  /** One attribute, for people: docs/trace-attributes.md is generated from {@link #ATTRIBUTES}. */
  public record Attribute(AttributeKey<?> key, String spans, String meaning) {}

  private static final String ALL_SPANS = "every span";
  private static final String CONSUMERS = "process (ladder, idempotent consumer)";

  /** Every attribute above, in the order docs/trace-attributes.md lists them. */
  public static final List<Attribute> ATTRIBUTES =
      List.of(
          new Attribute(MESSAGING_SYSTEM, ALL_SPANS, "Always `kafka`."),
          new Attribute(
              OPERATION_TYPE, ALL_SPANS, "`send` (relay, replay) or `process` (consumers)."),
          new Attribute(OPERATION_NAME, ALL_SPANS, "`publish`, `process` or `replay`."),
          new Attribute(DESTINATION, ALL_SPANS, "The topic written to or read from."),
          new Attribute(PARTITION, ALL_SPANS, "Its partition (the relay's: once Kafka answered)."),
          new Attribute(
              OFFSET, ALL_SPANS, "The record's offset (the relay's: once Kafka answered)."),
          new Attribute(CONSUMER_GROUP, CONSUMERS, "The consumer group handling the record."),
          new Attribute(MESSAGE_ID, "publish (relay)", "The outbox event id."),
          new Attribute(ERROR_TYPE, "any that failed", "The exception's class name."),
          new Attribute(
              OPERATION_KEY, CONSUMERS, "The operation key the store or the ladder resolved."),
          new Attribute(
              OUTCOME,
              CONSUMERS + ", publish",
              "`applied`, `duplicate`, `failed` (idempotent consumer); `succeeded`, `retry`,"
                  + " `dead-letter`, `abandoned` (ladder); `acknowledged`, `dead-letter` (relay)."),
          new Attribute(RELAY, "publish (relay)", "The relay and leadership term (courier.relay)."),
          new Attribute(ATTEMPT, "process (ladder)", "The attempt: 1 for the first call."),
          new Attribute(
              TIER, "process (ladder)", "The tier the attempt ran at: 0 is the main topic."),
          new Attribute(
              CLASSIFICATION,
              "process (ladder), failed attempts",
              "How the failure was classified: `<class> (<rule>)`."),
          new Attribute(
              DELAY_MS, "process (ladder), retried attempts", "The delay until the next attempt."),
          new Attribute(
              NEXT_TOPIC,
              "process (ladder), failed attempts",
              "The tier or DLT the record went to."),
          new Attribute(
              DLT_REASON, "process (ladder), dead-lettered", "The courier.reason written."),
          new Attribute(
              REPLAY_OF, "replay", "The dead letter replayed: `<dlt>-<partition>@<offset>`."),
          new Attribute(REPLAY_ACTOR, "replay", "Who replayed it."),
          new Attribute(REPLAY_REASON, "replay", "The operator's reason."),
          new Attribute(REPLAY_AUDIT_ID, "replay", "The audit entry of the replay."));

  private CourierTracing() {}
}
