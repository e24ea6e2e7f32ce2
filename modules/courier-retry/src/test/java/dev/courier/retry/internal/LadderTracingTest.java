package dev.courier.retry.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.courier.core.CourierHeaders;
import dev.courier.core.CourierTracing;
import dev.courier.core.internal.Traces;
import dev.courier.retry.Classification;
import dev.courier.retry.FailureClass;
import dev.courier.testkit.TraceRecorder;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.sdk.trace.data.SpanData;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.junit.jupiter.api.Test;

/**
 * The attempt spans' life without a broker: current while the handler runs, the hop's one
 * traceparent, the decision on the span, and attempts a rebalance cut off ended as abandoned.
 */
class LadderTracingTest {

  private static final String PARENT = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";

  @Test
  void anAttemptIsCurrentInTheHandlerAndItsHopCarriesItsContextOnce() throws Exception {
    try (TraceRecorder traces = new TraceRecorder()) {
      LadderTracing tracing = new LadderTracing(Traces.of(traces.openTelemetry()), "billing");
      ConsumerRecord<byte[], byte[]> record = record("orders", 0, 7);
      LadderState state = LadderState.of(record, CourierHeaders.ID);
      Span[] inHandler = new Span[1];
      tracing.around(record, state, 0, () -> inHandler[0] = Span.current()).run();

      RecordHeaders hop = new RecordHeaders();
      hop.add(CourierHeaders.TRACEPARENT, PARENT.getBytes(StandardCharsets.UTF_8));
      tracing.inject(record, hop);
      tracing.retried(
          record,
          new IllegalStateException("busy"),
          new Classification(FailureClass.TRANSIENT, "default TRANSIENT", null),
          "orders.retry.1",
          Duration.ofMillis(500));

      SpanData attempt = traces.spans().get(0);
      assertThat(inHandler[0].getSpanContext().getSpanId()).isEqualTo(attempt.getSpanId());
      assertThat(attempt.getTraceId()).isEqualTo("0af7651916cd43dd8448eb211c80319c");
      assertThat(attempt.getParentSpanId()).isEqualTo("b7ad6b7169203331");
      assertThat(values(hop))
          .singleElement()
          .asString()
          .contains(attempt.getSpanId())
          .doesNotContain("b7ad6b7169203331");
      assertThat(attempt.getAttributes().get(CourierTracing.DELAY_MS)).isEqualTo(500L);
      assertThat(attempt.getAttributes().get(CourierTracing.OPERATION_KEY)).isEqualTo("op-7");
      assertThat(attempt.getEvents()).extracting(e -> e.getName()).containsExactly("exception");
    }
  }

  @Test
  void attemptsOfARevokedPartitionEndAsAbandonedAndTheOthersStayOpen() throws Exception {
    try (TraceRecorder traces = new TraceRecorder()) {
      LadderTracing tracing = new LadderTracing(Traces.of(traces.openTelemetry()), "billing");
      ConsumerRecord<byte[], byte[]> revoked = record("orders", 0, 1);
      ConsumerRecord<byte[], byte[]> kept = record("orders", 1, 1);
      tracing.around(revoked, LadderState.of(revoked, CourierHeaders.ID), 0, () -> {}).run();
      tracing.around(kept, LadderState.of(kept, CourierHeaders.ID), 0, () -> {}).run();

      tracing.abandon(List.of(new TopicPartition("orders", 0)));
      assertThat(traces.spans())
          .singleElement()
          .satisfies(
              s -> {
                assertThat(s.getAttributes().get(CourierTracing.OUTCOME)).isEqualTo("abandoned");
                assertThat(s.getAttributes().get(CourierTracing.PARTITION)).isEqualTo("0");
              });
      tracing.succeeded(kept);
      assertThat(traces.spans()).hasSize(2);
    }
  }

  @Test
  void offTheWorkRunsAsItIsAndTheHopIsLeftAlone() throws Exception {
    ConsumerRecord<byte[], byte[]> record = record("orders", 0, 3);
    HandlerCallsWork work = new HandlerCallsWork();
    assertThat(
            LadderTracing.NONE.around(record, LadderState.of(record, CourierHeaders.ID), 0, work))
        .isSameAs(work);
    RecordHeaders hop = new RecordHeaders();
    hop.add(CourierHeaders.TRACEPARENT, PARENT.getBytes(StandardCharsets.UTF_8));
    LadderTracing.NONE.inject(record, hop);
    assertThat(values(hop)).containsExactly(PARENT);
  }

  private static final class HandlerCallsWork implements HandlerCalls.Work {
    @Override
    public void run() {}
  }

  private static ConsumerRecord<byte[], byte[]> record(String topic, int partition, long offset) {
    ConsumerRecord<byte[], byte[]> r =
        new ConsumerRecord<>(topic, partition, offset, "k".getBytes(), "v".getBytes());
    r.headers().add(CourierHeaders.TRACEPARENT, PARENT.getBytes(StandardCharsets.UTF_8));
    r.headers().add(CourierHeaders.ID, ("op-" + offset).getBytes(StandardCharsets.UTF_8));
    return r;
  }

  private static List<String> values(RecordHeaders headers) {
    List<String> out = new ArrayList<>();
    for (Header h : headers.headers(CourierHeaders.TRACEPARENT)) {
      out.add(new String(h.value(), StandardCharsets.UTF_8));
    }
    return out;
  }
}
