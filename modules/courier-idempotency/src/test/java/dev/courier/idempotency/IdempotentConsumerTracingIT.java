package dev.courier.idempotency;

import static org.assertj.core.api.Assertions.assertThat;

import dev.courier.core.CourierHeaders;
import dev.courier.core.CourierTracing;
import dev.courier.testkit.CourierInfraTest;
import dev.courier.testkit.KafkaBroker;
import dev.courier.testkit.TestDatabase;
import dev.courier.testkit.TraceRecorder;
import dev.courier.testkit.UniqueNames;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.context.Context;
import io.opentelemetry.sdk.trace.data.EventData;
import io.opentelemetry.sdk.trace.data.SpanData;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.Statement;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;

/**
 * The idempotent consumer's span per record, in single and batch mode: a child of the record's
 * trace, current while the effect runs, with the messaging attributes, the operation key and the
 * outcome; a duplicate skipped by the store is a span that says so.
 */
@CourierInfraTest
class IdempotentConsumerTracingIT {

  @Test
  void eachRecordIsAChildSpanOfItsTraceAndADuplicateSaysSo(KafkaBroker kafka, TestDatabase db)
      throws Exception {
    assertSpans(kafka, db, false);
  }

  @Test
  void inBatchModeToo(KafkaBroker kafka, TestDatabase db) throws Exception {
    assertSpans(kafka, db, true);
  }

  private static void assertSpans(KafkaBroker kafka, TestDatabase db, boolean batch)
      throws Exception {
    String topic = UniqueNames.topic("traced");
    String group = UniqueNames.group("traced");
    kafka.createTopic(topic, 1);
    try (TraceRecorder traces = new TraceRecorder();
        Connection c = db.connection();
        Statement s = c.createStatement()) {
      s.execute("CREATE TABLE IF NOT EXISTS traced_effects (value text)");
      Span order = traces.openTelemetry().getTracer("test").spanBuilder("POST /orders").startSpan();
      order.end();
      Span other = traces.openTelemetry().getTracer("test").spanBuilder("POST /orders").startSpan();
      other.end();
      try (KafkaProducer<String, String> producer =
          new KafkaProducer<>(
              kafka.producerConfig(), new StringSerializer(), new StringSerializer())) {
        // op-1, the same op-1 again (a re-send), then op-2 of another trace.
        producer.send(record(traces, topic, "op-1", order)).get();
        producer.send(record(traces, topic, "op-1", order)).get();
        producer.send(record(traces, topic, "op-2", other)).get();
      }
      Span[] inEffect = new Span[1];
      IdempotentHandler<String, String> handler =
          IdempotentHandler.<String, String>builder()
              .dataSource(db.dataSource())
              .config(Map.of(IdempotencyConfig.CONSUMER_NAME, group))
              .effect(
                  (conn, record) -> {
                    inEffect[0] = Span.current();
                    try (PreparedStatement ps =
                        conn.prepareStatement("INSERT INTO traced_effects VALUES (?)")) {
                      ps.setString(1, record.value());
                      ps.executeUpdate();
                    }
                  })
              .build();
      Map<String, Object> settings = kafka.clientSettings();
      settings.put(IdempotentConsumerConfig.GROUP_ID, group);
      try (IdempotentConsumer<String, String> consumer =
          IdempotentConsumer.builder(settings, new StringDeserializer(), new StringDeserializer())
              .topics(List.of(topic))
              .handler(handler)
              .batchMode(batch)
              .openTelemetry(traces.openTelemetry())
              .build()) {
        consumer.runUntil(p -> p.handled() >= 3);
        assertThat(consumer.progress().duplicates()).isEqualTo(1);
      }

      List<SpanData> spans = traces.all(sp -> sp.getName().equals("process " + topic));
      assertThat(spans).hasSize(3);
      SpanData applied = spans.get(0);
      SpanData duplicate = spans.get(1);
      SpanData second = spans.get(2);
      assertThat(applied.getKind()).isEqualTo(SpanKind.CONSUMER);
      assertThat(applied.getTraceId()).isEqualTo(order.getSpanContext().getTraceId());
      assertThat(applied.getParentSpanId()).isEqualTo(order.getSpanContext().getSpanId());
      assertThat(applied.getAttributes().get(CourierTracing.OUTCOME)).isEqualTo("applied");
      assertThat(applied.getAttributes().get(CourierTracing.MESSAGING_SYSTEM)).isEqualTo("kafka");
      assertThat(applied.getAttributes().get(CourierTracing.DESTINATION)).isEqualTo(topic);
      assertThat(applied.getAttributes().get(CourierTracing.PARTITION)).isEqualTo("0");
      assertThat(applied.getAttributes().get(CourierTracing.OFFSET)).isEqualTo(0L);
      assertThat(applied.getAttributes().get(CourierTracing.CONSUMER_GROUP)).isEqualTo(group);
      assertThat(duplicate.getTraceId()).isEqualTo(order.getSpanContext().getTraceId());
      assertThat(duplicate.getAttributes().get(CourierTracing.OUTCOME)).isEqualTo("duplicate");
      assertThat(duplicate.getEvents())
          .extracting(EventData::getName)
          .contains("duplicate skipped");
      assertThat(duplicate.getStatus().getStatusCode()).isNotEqualTo(StatusCode.ERROR);
      assertThat(second.getTraceId()).isEqualTo(other.getSpanContext().getTraceId());
      assertThat(applied.getAttributes().get(CourierTracing.OPERATION_KEY)).isEqualTo("op-1");
      assertThat(duplicate.getAttributes().get(CourierTracing.OPERATION_KEY)).isEqualTo("op-1");
      assertThat(second.getAttributes().get(CourierTracing.OPERATION_KEY)).isEqualTo("op-2");
      if (!batch) {
        assertThat(inEffect[0].getSpanContext().getSpanId())
            .as("the effect runs inside the record's span")
            .isEqualTo(second.getSpanId());
      }
    }
  }

  private static ProducerRecord<String, String> record(
      TraceRecorder traces, String topic, String op, Span parent) {
    ProducerRecord<String, String> r = new ProducerRecord<>(topic, 0, "k", "value-of-" + op);
    r.headers().add(CourierHeaders.ID, op.getBytes(StandardCharsets.UTF_8));
    traces
        .openTelemetry()
        .getPropagators()
        .getTextMapPropagator()
        .inject(
            Context.root().with(parent),
            r.headers(),
            (h, k, v) -> h.add(k, v.getBytes(StandardCharsets.UTF_8)));
    return r;
  }
}
