package dev.courier.outbox.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.courier.core.CourierHeaders;
import dev.courier.core.CourierTracing;
import io.debezium.data.Envelope;
import io.debezium.data.Json;
import io.debezium.data.Uuid;
import io.debezium.time.ZonedTimestamp;
import io.debezium.transforms.outbox.EventRouter;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.source.SourceRecord;
import org.junit.jupiter.api.Test;

/** Change events shaped as Debezium's PostgreSQL connector emits them for the outbox table. */
class RowRouterTest {

  private static final String CDC_TOPIC = "courier.public.courier_outbox";
  private static final Schema ROW =
      SchemaBuilder.struct()
          .name(CDC_TOPIC + ".Value")
          .field("id", Uuid.builder().build())
          .field("aggregatetype", Schema.OPTIONAL_STRING_SCHEMA)
          .field("aggregateid", Schema.OPTIONAL_STRING_SCHEMA)
          .field("type", Schema.STRING_SCHEMA)
          .field("payload", Schema.OPTIONAL_BYTES_SCHEMA)
          .field("content_type", Schema.STRING_SCHEMA)
          .field("headers", Json.builder().optional().build())
          .field("deadline", ZonedTimestamp.builder().optional().build())
          .field(CourierTracing.OUTBOX_COLUMN, Schema.OPTIONAL_STRING_SCHEMA)
          .build();
  private static final Schema SOURCE =
      SchemaBuilder.struct()
          .name("io.debezium.connector.postgresql.Source")
          .field("ts_ms", Schema.INT64_SCHEMA)
          .build();
  private static final Envelope ENVELOPE =
      Envelope.defineSchema()
          .withName(CDC_TOPIC + ".Envelope")
          .withRecord(ROW)
          .withSource(SOURCE)
          .build();

  private final RowRouter router = new RowRouter("outbox", "courier", "courier_outbox");

  @Test
  void anInsertBecomesARecordOnItsAggregatesTopicKeyedByItsAggregate() {
    Struct row =
        row("orders", "order-7")
            .put("headers", "{\"tenant\":\"acme\",\"traceparent\":\"stale\"}")
            .put("deadline", "2026-12-05T12:00:00Z")
            .put(
                CourierTracing.OUTBOX_COLUMN,
                "traceparent=00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01\n");

    RowRouter.Routed routed = router.route(insert(row, 1_700_000_000_123L));

    assertThat(routed).isInstanceOf(RowRouter.Publish.class);
    RowRouter.Publish publish = (RowRouter.Publish) routed;
    ProducerRecord<byte[], byte[]> record = publish.record();
    assertThat(record.topic()).isEqualTo("outbox.orders");
    assertThat(text(record.key())).isEqualTo("order-7");
    assertThat(text(record.value())).isEqualTo("{\"total\":10}");
    assertThat(record.partition()).isNull();
    assertThat(record.timestamp()).isNull();
    assertThat(publish.commitMillis()).isEqualTo(1_700_000_000_123L);
    assertThat(headers(record))
        .containsExactly(
            CourierHeaders.ID + "=" + row.getString("id"),
            CourierHeaders.TYPE + "=OrderPlaced",
            CourierHeaders.CONTENT_TYPE + "=application/json",
            "tenant=acme",
            CourierHeaders.DEADLINE + "=2026-12-05T12:00:00Z",
            CourierHeaders.TRACEPARENT
                + "=00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01");
  }

  @Test
  void givesTheTopicKeyValueAndFieldHeadersDebeziumsEventRouterGave() {
    Struct row = row("payments", "acct-1").put("deadline", "2026-12-05T12:00:00Z");
    SourceRecord change = insert(row, 42L);
    ProducerRecord<byte[], byte[]> ours = ((RowRouter.Publish) router.route(change)).record();

    try (EventRouter<SourceRecord> debezium = new EventRouter<>()) {
      debezium.configure(
          Map.of(
              "route.topic.replacement", "outbox.${routedByValue}",
              "table.field.event.key", "aggregateid",
              "table.fields.additional.placement",
                  "type:header:type,content_type:header:content-type,deadline:header:courier.deadline",
              "tracing.span.context.field", "none"));
      SourceRecord theirs = debezium.apply(change);

      assertThat(ours.topic()).isEqualTo(theirs.topic());
      assertThat(text(ours.key())).isEqualTo(theirs.key());
      ByteBuffer payload = ((ByteBuffer) theirs.value()).duplicate();
      byte[] theirValue = new byte[payload.remaining()];
      payload.get(theirValue);
      assertThat(ours.value()).isEqualTo(theirValue);
      List<String> theirHeaders = new ArrayList<>();
      theirs.headers().forEach(h -> theirHeaders.add(h.key() + "=" + h.value()));
      assertThat(headers(ours)).containsExactlyElementsOf(theirHeaders);
    }
  }

  @Test
  void aRowWithoutKeyOrTopicOrWithBadHeadersIsInvalidNotAFailure() {
    assertThat(router.route(insert(row("orders", null), 1L)))
        .isInstanceOfSatisfying(
            RowRouter.Invalid.class, i -> assertThat(i.reason()).startsWith("aggregateid is null"));
    assertThat(router.route(insert(row(null, "k"), 1L)))
        .isInstanceOfSatisfying(
            RowRouter.Invalid.class,
            i -> assertThat(i.reason()).startsWith("aggregatetype is null"));
    assertThat(router.route(insert(row("orders", "k").put("headers", "[1,2]"), 1L)))
        .isInstanceOfSatisfying(
            RowRouter.Invalid.class,
            i -> assertThat(i.reason()).contains("headers column is not a JSON object"));
  }

  @Test
  void deletesOtherTablesAndTombstonesAreSkipped() {
    Struct row = row("orders", "k");
    Struct delete = ENVELOPE.delete(row, source(1L), Instant.EPOCH);

    assertThat(router.route(record(CDC_TOPIC, delete))).isInstanceOf(RowRouter.Skip.class);
    assertThat(router.route(record("courier.public.other", insertValue(row, 1L))))
        .isInstanceOf(RowRouter.Skip.class);
    assertThat(router.route(new SourceRecord(Map.of(), Map.of(), CDC_TOPIC, null, null)))
        .isInstanceOf(RowRouter.Skip.class);
  }

  private static Struct row(String aggregateType, String aggregateId) {
    return new Struct(ROW)
        .put("id", "5f0c3a1e-2b1d-4c8e-9a77-0d5c1b2e3f40")
        .put("aggregatetype", aggregateType)
        .put("aggregateid", aggregateId)
        .put("type", "OrderPlaced")
        .put("payload", ByteBuffer.wrap("{\"total\":10}".getBytes(StandardCharsets.UTF_8)))
        .put("content_type", "application/json");
  }

  private static Struct source(long commitMillis) {
    return new Struct(SOURCE).put("ts_ms", commitMillis);
  }

  private static Struct insertValue(Struct row, long commitMillis) {
    return ENVELOPE.create(row, source(commitMillis), Instant.EPOCH);
  }

  private static SourceRecord insert(Struct row, long commitMillis) {
    return record(CDC_TOPIC, insertValue(row, commitMillis));
  }

  private static SourceRecord record(String topic, Struct value) {
    return new SourceRecord(Map.of(), Map.of(), topic, null, null, ENVELOPE.schema(), value);
  }

  private static List<String> headers(ProducerRecord<byte[], byte[]> record) {
    List<String> out = new ArrayList<>();
    for (Header h : record.headers()) {
      out.add(h.key() + "=" + text(h.value()));
    }
    return out;
  }

  private static String text(Object bytes) {
    return bytes == null ? null : new String((byte[]) bytes, StandardCharsets.UTF_8);
  }
}
