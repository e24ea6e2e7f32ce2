package dev.courier.outbox;

import static org.assertj.core.api.Assertions.assertThat;

import dev.courier.core.CourierHeaders;
import dev.courier.testkit.CourierInfraTest;
import dev.courier.testkit.KafkaBroker;
import dev.courier.testkit.TestDatabase;
import dev.courier.testkit.TraceRecorder;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.context.Scope;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.stream.StreamSupport;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;

/**
 * The writer's trace context through an untraced relay: a row written in a span reaches Kafka with
 * that span's {@code traceparent}, exactly one, replacing one among the row's own headers; a row
 * written outside any span gets none; a writer given no OpenTelemetry stores nothing.
 */
@CourierInfraTest
class RelayTraceContextIT {

  private static final Duration TIMEOUT = Duration.ofSeconds(60);

  @Test
  void theWritersContextReachesKafkaOnceAndARowWithoutOneGetsNone(
      KafkaBroker kafka, TestDatabase db) throws Exception {
    OutboxFixture fixture = new OutboxFixture(kafka, db);
    try (TraceRecorder traces = new TraceRecorder();
        OutboxRelay relay =
            OutboxRelay.create(fixture.settings, new SimpleMeterRegistry(), Clock.systemUTC())) {
      assertThat(relay.awaitStreaming(TIMEOUT)).isTrue();
      OutboxWriter traced =
          OutboxWriter.builder()
              .removeAfterInsert(false)
              .openTelemetry(traces.openTelemetry())
              .meterRegistry(new SimpleMeterRegistry())
              .build();
      Span request =
          traces.openTelemetry().getTracer("test").spanBuilder("POST /credits").startSpan();
      try (Scope ignored = request.makeCurrent();
          Connection c = db.connection()) {
        c.setAutoCommit(false);
        traced.write(
            c,
            OutboxRelayIT.credit("acc-1", 1)
                .header(CourierHeaders.TRACEPARENT, "00-stale-from-the-row-01")
                .build());
        c.commit();
      } finally {
        request.end();
      }
      try (Connection c = db.connection()) {
        c.setAutoCommit(false);
        traced.write(c, OutboxRelayIT.credit("acc-2", 1).build()); // no span current
        OutboxWriter.create().write(c, OutboxRelayIT.credit("acc-3", 1).build());
        c.commit();
      }

      List<ConsumerRecord<String, String>> records =
          OutboxFixture.read(kafka, fixture.topic("account"), 3, TIMEOUT);
      assertThat(records).hasSize(3);
      assertThat(traceparents(records, "acc-1"))
          .singleElement()
          .asString()
          .startsWith(
              "00-"
                  + request.getSpanContext().getTraceId()
                  + "-"
                  + request.getSpanContext().getSpanId()
                  + "-");
      assertThat(traceparents(records, "acc-2")).isEmpty();
      assertThat(traceparents(records, "acc-3")).isEmpty();
      assertThat(traces.spans())
          .as("an untraced relay starts no span")
          .extracting(s -> s.getName())
          .containsExactly("POST /credits");
      assertThat(column(db, "acc-1")).startsWith("traceparent=00-");
      assertThat(column(db, "acc-2")).isNull();
    }
  }

  private static List<String> traceparents(
      List<ConsumerRecord<String, String>> records, String key) {
    ConsumerRecord<String, String> r =
        records.stream().filter(x -> x.key().equals(key)).findFirst().orElseThrow();
    return StreamSupport.stream(
            r.headers().headers(CourierHeaders.TRACEPARENT).spliterator(), false)
        .map(h -> new String(h.value(), StandardCharsets.UTF_8))
        .toList();
  }

  private static String column(TestDatabase db, String aggregateId) throws Exception {
    try (Connection c = db.connection();
        PreparedStatement ps =
            c.prepareStatement(
                "SELECT tracingspancontext FROM courier_outbox WHERE aggregateid = ?")) {
      ps.setString(1, aggregateId);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return rs.getString(1);
      }
    }
  }
}
