package dev.courier.outbox.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.courier.core.CourierHeaders;
import dev.courier.core.CourierTracing;
import io.debezium.transforms.outbox.EventRouter;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.header.Header;
import org.apache.kafka.connect.source.SourceRecord;

/**
 * Turns one captured outbox insert into the Kafka record to publish, with Debezium's EventRouter:
 * topic {@code <prefix>.<aggregatetype>}, key aggregate id, header {@code id}, plus headers for the
 * type, content type, deadline and the row's own headers.
 */
public final class RowRouter implements AutoCloseable {

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

  /** Where EventRouter puts the row's headers column, expanded into one header each. */
  private static final String ROW_HEADERS = "courier-row-headers";

  private final EventRouter<SourceRecord> router = new EventRouter<>();
  private final String outboxTopic;

  /**
   * Routes the changes of {@code table} (in schema {@code public}) of the engine {@code cdcPrefix}.
   */
  public RowRouter(String prefix, String cdcPrefix, String table) {
    this.outboxTopic = cdcPrefix + ".public." + table;
    router.configure(
        Map.of(
            "route.by.field", "aggregatetype",
            "route.topic.replacement", prefix + ".${routedByValue}",
            "table.field.event.id", "id",
            "table.field.event.key", "aggregateid",
            "table.field.event.payload", "payload",
            "table.fields.additional.placement",
                "type:header:"
                    + CourierHeaders.TYPE
                    + ",content_type:header:"
                    + CourierHeaders.CONTENT_TYPE
                    + ",headers:header:"
                    + ROW_HEADERS
                    + ",deadline:header:"
                    + CourierHeaders.DEADLINE,
            "table.op.invalid.behavior", "warn",
            // Debezium's own tracing would start spans on the global OpenTelemetry from this
            // column; the relay continues the context itself, with the OpenTelemetry it is given.
            "tracing.span.context.field", "courier_relay_reads_" + CourierTracing.OUTBOX_COLUMN));
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
    try {
      return publish(change, envelope, row);
    } catch (RuntimeException e) {
      // A row the router cannot turn into a record (its headers column is not a JSON object, say)
      // must not stop the relay on every restart: it is an invalid row like any other.
      return new Invalid("cannot be routed: " + e.getMessage(), row);
    }
  }

  private Publish publish(SourceRecord change, Struct envelope, Row row) {
    long commitMillis = envelope.getStruct("source").getInt64("ts_ms");
    SourceRecord routed = router.apply(change);
    RecordHeaders headers = new RecordHeaders();
    for (Header header : routed.headers()) {
      if (header.value() == null) {
        continue;
      }
      if (header.key().equals(ROW_HEADERS)) {
        expand(header.value().toString(), headers);
      } else {
        headers.add(header.key(), header.value().toString().getBytes(StandardCharsets.UTF_8));
      }
    }
    // The writer's context replaces any the row's own headers carried: one traceparent per record.
    TraceColumn.parse(row.traceContext())
        .forEach(
            (name, value) -> {
              headers.remove(name);
              headers.add(name, value.getBytes(StandardCharsets.UTF_8));
            });
    Object value = routed.value();
    byte[] payload = value instanceof ByteBuffer b ? bytes(b) : (byte[]) value;
    byte[] key = routed.key().toString().getBytes(StandardCharsets.UTF_8);
    return new Publish(
        new ProducerRecord<>(routed.topic(), null, null, key, payload, headers), commitMillis, row);
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
    try {
      JsonNode node = JSON.readTree(json);
      node.fields()
          .forEachRemaining(
              e -> headers.add(e.getKey(), e.getValue().asText().getBytes(StandardCharsets.UTF_8)));
    } catch (Exception e) {
      throw new IllegalStateException("outbox headers column is not a JSON object: " + json, e);
    }
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

  @Override
  public void close() {
    router.close();
  }
}
