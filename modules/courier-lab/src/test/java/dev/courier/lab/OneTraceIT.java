package dev.courier.lab;

import static org.assertj.core.api.Assertions.assertThat;

import dev.courier.core.CourierHeaders;
import dev.courier.core.CourierTracing;
import dev.courier.retry.RetryTopics;
import dev.courier.testkit.CourierInfraTest;
import dev.courier.testkit.KafkaBroker;
import dev.courier.testkit.TestDatabase;
import dev.courier.testkit.TraceRecorder;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.sdk.trace.data.SpanData;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.stream.StreamSupport;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;

/**
 * The lab's trace flow on a real broker and PostgreSQL, read back from OpenTelemetry's in-memory
 * exporter: a request span writes an order through the outbox, the relay publishes it, the ladder
 * fails it twice transiently and once permanently, an operator replays it, and it succeeds. One
 * trace id across all of it, in this shape:
 *
 * <pre>
 * POST /orders
 * └─ publish lab_trace.order            (relay: commit to Kafka's acknowledgement)
 *    └─ process lab_trace.order                              attempt 1, retry
 *       └─ process lab_trace.order.lab_trace-billing.retry.1   attempt 2, retry
 *          └─ process lab_trace.order.lab_trace-billing.retry.2   attempt 3, dead-letter
 *             └─ replay lab_trace.order.lab_trace-billing.dlt      (linked to attempt 3)
 *                └─ process lab_trace.order.lab_trace-billing.retry.1   attempt 1, succeeded
 * </pre>
 */
@CourierInfraTest
class OneTraceIT {

  @Test
  void oneTraceFromTheRequestThroughTheOutboxRelayLadderDltAndReplay(
      KafkaBroker kafka, TestDatabase db) throws Exception {
    try (TraceRecorder traces = new TraceRecorder()) {
      TraceStep.Flow flow = TraceStep.flow(kafka, db, traces);

      List<SpanData> trace = traces.trace(flow.traceId());
      assertThat(traces.spans())
          .as("every span Courier started is in the request's trace:%n%s", traces.spans())
          .filteredOn(s -> s.getInstrumentationScopeInfo().getName().equals(CourierTracing.SCOPE))
          .hasSize(6)
          .allSatisfy(s -> assertThat(s.getTraceId()).isEqualTo(flow.traceId()));
      String topic = TraceStep.TOPIC;
      SpanData publish = only(trace, "publish " + topic);
      assertThat(publish.getKind()).isEqualTo(SpanKind.PRODUCER);
      assertThat(publish.getParentSpanId()).isEqualTo(flow.requestSpanId());
      assertThat(publish.getAttributes().get(CourierTracing.OUTCOME)).isEqualTo("acknowledged");
      assertThat(publish.getAttributes().get(CourierTracing.OFFSET)).isEqualTo(0L);
      assertThat(publish.getAttributes().get(CourierTracing.MESSAGE_ID)).isNotBlank();
      SpanData request = trace.get(0);
      assertThat(request.getName()).isEqualTo("POST /orders");
      assertThat(publish.getStartEpochNanos())
          .as("the publish span starts at the transaction's commit, inside the request")
          .isLessThanOrEqualTo(request.getEndEpochNanos());

      SpanData first = only(trace, "process " + topic, 1);
      RetryTopics ladder = new RetryTopics(topic, TraceStep.PREFIX + "-billing", 3);
      SpanData second = only(trace, "process " + ladder.tier(1), 2);
      SpanData third = only(trace, "process " + ladder.tier(2), 3);
      assertThat(first.getParentSpanId()).isEqualTo(publish.getSpanId());
      assertThat(second.getParentSpanId()).isEqualTo(first.getSpanId());
      assertThat(third.getParentSpanId()).isEqualTo(second.getSpanId());
      assertThat(List.of(first, second, third))
          .extracting(s -> s.getAttributes().get(CourierTracing.OUTCOME))
          .containsExactly("retry", "retry", "dead-letter");
      assertThat(first.getAttributes().get(CourierTracing.DELAY_MS)).isBetween(0L, 200L);
      assertThat(third.getAttributes().get(CourierTracing.CLASSIFICATION)).startsWith("PERMANENT");

      SpanData replay = only(trace, "replay " + ladder.deadLetter());
      assertThat(replay.getParentSpanId()).isEqualTo(third.getSpanId());
      assertThat(replay.getLinks()).hasSize(1);
      assertThat(replay.getLinks().get(0).getSpanContext().getSpanId())
          .isEqualTo(third.getSpanId());
      assertThat(replay.getAttributes().get(CourierTracing.REPLAY_REASON))
          .isEqualTo("the card issuer is back");
      SpanData afterReplay =
          trace.stream()
              .filter(s -> s.getParentSpanId().equals(replay.getSpanId()))
              .findFirst()
              .orElseThrow();
      // The replay went back to the group that dead-lettered it, through its first tier.
      assertThat(afterReplay.getName()).isEqualTo("process " + ladder.tier(1));
      assertThat(afterReplay.getAttributes().get(CourierTracing.OUTCOME)).isEqualTo("succeeded");

      assertThat(flow.deadLetterTraceId()).contains(flow.traceId());
      ConsumerRecord<String, String> letter =
          kafka.readStrings(ladder.deadLetter(), 1, Duration.ofSeconds(30)).get(0);
      assertThat(
              StreamSupport.stream(
                      letter.headers().headers(CourierHeaders.TRACEPARENT).spliterator(), false)
                  .map(h -> new String(h.value(), StandardCharsets.UTF_8))
                  .toList())
          .as("the dead letter carries one traceparent: the failed attempt's")
          .singleElement()
          .asString()
          .startsWith("00-" + flow.traceId() + "-" + third.getSpanId() + "-");
      assertThat(traces.tree(flow.traceId(), TraceStep.SHOWN))
          .contains("POST /orders")
          .contains("└─ publish " + topic)
          .contains("courier.replay.reason=the card issuer is back");
    }
  }

  private static SpanData only(List<SpanData> trace, String name) {
    List<SpanData> named = trace.stream().filter(s -> s.getName().equals(name)).toList();
    assertThat(named).as("spans named %s", name).hasSize(1);
    return named.get(0);
  }

  private static SpanData only(List<SpanData> trace, String name, long attempt) {
    List<SpanData> named =
        trace.stream()
            .filter(s -> s.getName().equals(name))
            .filter(
                s -> Long.valueOf(attempt).equals(s.getAttributes().get(CourierTracing.ATTEMPT)))
            .toList();
    // The replayed record is attempt 1 again, later: the first one is the original's.
    assertThat(named).as("attempt %s named %s", attempt, name).isNotEmpty();
    return named.get(0);
  }
}
