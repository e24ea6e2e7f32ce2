package dev.courier.outbox.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.courier.core.CourierHeaders;
import dev.courier.core.CourierTracing;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.source.SourceRecord;

/**
 * Turns one captured outbox insert into the Kafka record to publish, as Debezium's outbox
 * EventRouter configured for Courier's table did: topic {@code <prefix>.<aggregatetype>}, key the
 * aggregate id, value the payload, header {@code id}, plus headers for the type, content type,
 * deadline and the row's own headers. It reads the change event's fields directly: the
 * EventRouter's copies of the record, its regular-expression topic router and its tracing hook
 * (which asks for the global OpenTelemetry) are work a fixed mapping does not need.
 */
public final class RowRouter {

  /** The outcome for one change event. */
  public sealed interface Routed permits Publish, Skip, Invalid {}

  /** The outbox row an event came from, for dead letters. */
  public record Row(
      String eventId,
      String aggregateType,
      String aggregateId,
      String type,
      String contentType,
      byte[] payload,
      String traceContext) {}

  /** Publish this record; {@code commitMillis} is the transaction's commit time. */
  public record Publish(ProducerRecord<byte[], byte[]> record, long commitMillis, Row row)
      implements Routed {
    public String eventId() {
      return row.eventId();
    }
  }

  /** Not an event (a delete of remove-after-insert, a heartbeat): only its position counts. */
  public record Skip() implements Routed {}

  /** A row that cannot be published, with the reason. */
  public record Invalid(String reason, Row row) implements Routed {
    public String eventId() {
      return row.eventId();
    }
  }

  private static final ObjectMapper JSON = new ObjectMapper();

  private final String topicPrefix;
  private final String outboxTopic;

  /**
   * Routes the changes of {@code table} (in schema {@code public}) of the engine {@code cdcPrefix}.
   */
  public RowRouter(String prefix, String cdcPrefix, String table) {
    this.topicPrefix = prefix + ".";
    this.outboxTopic = cdcPrefix + ".public." + table;
  }

  public Routed route(SourceRecord change) {
    if (!outboxTopic.equals(change.topic()) || !(change.value() instanceof Struct envelope)) {
      return new Skip();
    }
    if (!"c".equals(envelope.getString("op"))) {
      return new Skip(); // the delete of remove-after-insert
    }
    Struct after = envelope.getStruct("after");
    Row row = row(after);
    if (row.aggregateId() == null) {
      return new Invalid("aggregateid is null: the event has no key and no order", row);
    }
    if (row.aggregateType() == null) {
      return new Invalid("aggregatetype is null: the event has no topic", row);
    }
    try {
      return publish(envelope, after, row);
    } catch (RuntimeException e) {
      // A row the router cannot turn into a record (its headers column is not a JSON object, say)
      // must not stop the relay on every restart: it is an invalid row like any other.
      return new Invalid("cannot be routed: " + e.getMessage(), row);
    }
  }

  private Publish publish(Struct envelope, Struct after, Row row) {
    long commitMillis = envelope.getStruct("source").getInt64("ts_ms");
    // The headers in the order Debezium's outbox EventRouter gave them: id, the row's fields, the
    // row's own headers where its headers column stands, then the writer's trace context.
    RecordHeaders headers = new RecordHeaders();
    add(headers, CourierHeaders.ID, row.eventId());
    add(headers, CourierHeaders.TYPE, row.type());
    add(headers, CourierHeaders.CONTENT_TYPE, row.contentType());
    String rowHeaders = text(after, "headers");
    if (rowHeaders != null) {
      expand(rowHeaders, headers);
    }
    add(headers, CourierHeaders.DEADLINE, text(after, "deadline"));
    // The writer's context replaces any the row's own headers carried: one traceparent per record.
    TraceColumn.parse(row.traceContext())
        .forEach(
            (name, value) -> {
              headers.remove(name);
              headers.add(name, value.getBytes(StandardCharsets.UTF_8));
            });
    byte[] key = row.aggregateId().getBytes(StandardCharsets.UTF_8);
    return new Publish(
        new ProducerRecord<>(
            topicPrefix + row.aggregateType(), null, null, key, row.payload(), headers),
        commitMillis,
        row);
  }

  private static void add(RecordHeaders headers, String name, String value) {
    if (value != null) {
      headers.add(name, value.getBytes(StandardCharsets.UTF_8));
    }
  }

  private static Row row(Struct after) {
    Object payload = after.get("payload");
    return new Row(
        String.valueOf(after.get("id")),
        text(after, "aggregatetype"),
        text(after, "aggregateid"),
        text(after, "type"),
        text(after, "content_type"),
        payload instanceof ByteBuffer b ? bytes(b) : payload instanceof byte[] b ? b : null,
        text(after, CourierTracing.OUTBOX_COLUMN));
  }

  private static String text(Struct after, String field) {
    Object v = after.schema().field(field) == null ? null : after.get(field);
    return v == null ? null : v.toString();
  }

  private static void expand(String json, RecordHeaders headers) {
    JsonNode node;
    try {
      node = JSON.readTree(json);
    } catch (Exception e) {
      throw new IllegalStateException("outbox headers column is not a JSON object: " + json, e);
    }
    // An array or a scalar would give no headers without a word: the row is invalid instead.
    if (!node.isObject()) {
      throw new IllegalStateException("outbox headers column is not a JSON object: " + json);
    }
    node.fields()
        .forEachRemaining(
            e -> headers.add(e.getKey(), e.getValue().asText().getBytes(StandardCharsets.UTF_8)));
  }

  private static byte[] bytes(ByteBuffer buffer) {
    byte[] bytes = new byte[buffer.remaining()];
    buffer.duplicate().get(bytes);
    return bytes;
  }

  public static Optional<String> header(ProducerRecord<byte[], byte[]> record, String name) {
    var header = record.headers().lastHeader(name);
    return header == null
        ? Optional.empty()
        : Optional.of(new String(header.value(), StandardCharsets.UTF_8));
  }
}
