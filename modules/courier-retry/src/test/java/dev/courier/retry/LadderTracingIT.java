package dev.courier.retry;

import static org.assertj.core.api.Assertions.assertThat;

import dev.courier.core.CourierHeaders;
import dev.courier.core.CourierTracing;
import dev.courier.core.PermanentError;
import dev.courier.testkit.CourierInfraTest;
import dev.courier.testkit.KafkaBroker;
import dev.courier.testkit.TestDatabase;
import dev.courier.testkit.TraceRecorder;
import dev.courier.testkit.UniqueNames;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.context.Scope;
import io.opentelemetry.instrumentation.kafkaclients.v2_6.KafkaTelemetry;
import io.opentelemetry.sdk.trace.data.SpanData;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.StreamSupport;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;

/**
 * One trace through the ladder, with clients nobody here wrote on both ends: a producer
 * instrumented by OpenTelemetry's Kafka instrumentation starts the trace, the ladder's attempts
 * (main topic, two tiers, DLT) and the operator's replay continue it, and a consumer instrumented
 * by that same instrumentation reads the dead letter in the same trace. The SDK's in-memory
 * exporter records every span.
 */
@CourierInfraTest
class LadderTracingIT {

  private static final Duration TIMEOUT = Duration.ofSeconds(90);

  static final class Refused extends RuntimeException implements PermanentError {
    Refused() {
      super("the card was declined");
    }

    @Override
    public String reason() {
      return "declined";
    }
  }

  @Test
  void oneTraceFromAnInstrumentedProducerThroughEveryTierTheDltAndTheReplay(
      KafkaBroker kafka, TestDatabase db) throws Exception {
    String topic = UniqueNames.topic("traced");
    String group = UniqueNames.group("traced");
    kafka.createTopic(topic, 1);
    try (TraceRecorder traces = new TraceRecorder()) {
      KafkaTelemetry telemetry = KafkaTelemetry.create(traces.openTelemetry());
      String traceId;
      Span request =
          traces
              .openTelemetry()
              .getTracer("test")
              .spanBuilder("POST /charges")
              .setSpanKind(SpanKind.SERVER)
              .startSpan();
      try (Scope ignored = request.makeCurrent();
          Producer<String, String> producer =
              telemetry.wrap(
                  new KafkaProducer<>(
                      kafka.producerConfig(), new StringSerializer(), new StringSerializer()))) {
        ProducerRecord<String, String> charge = new ProducerRecord<>(topic, 0, "acc-1", "c-1");
        charge.headers().add(CourierHeaders.ID, "c-1".getBytes(StandardCharsets.UTF_8));
        producer.send(charge).get();
        traceId = request.getSpanContext().getTraceId();
      } finally {
        request.end();
      }

      // Two transient failures, a permanent one, and (after the replay) a success.
      AtomicInteger calls = new AtomicInteger();
      RecordHandler<String, String> handler =
          record -> {
            int call = calls.incrementAndGet();
            assertThat(Span.current().getSpanContext().getTraceId())
                .as("the handler runs inside its attempt's span")
                .isEqualTo(traceId);
            if (call <= 2) {
              throw new IllegalStateException("gateway busy (call " + call + ")");
            }
            if (call == 3) {
              throw new Refused();
            }
          };
      Map<String, Object> settings = LadderTestSettings.of(kafka.clientSettings(), topic, group);
      settings.put(RetryConfig.MAX_ATTEMPTS, 4);
      Running.until(consumer(settings, handler, traces), p -> p.deadLettered() == 1, TIMEOUT);

      RetryTopics ladder = new RetryTopics(topic, group, 3);
      String dlt = ladder.deadLetter();
      List<ConsumerRecord<String, String>> hops = new ArrayList<>();
      hops.addAll(kafka.readStrings(ladder.tier(1), 1, TIMEOUT));
      hops.addAll(kafka.readStrings(ladder.tier(2), 1, TIMEOUT));
      hops.addAll(kafka.readStrings(dlt, 1, TIMEOUT));
      assertThat(hops).hasSize(3);
      for (ConsumerRecord<String, String> hop : hops) {
        assertThat(headers(hop, CourierHeaders.TRACEPARENT))
            .as("%s carries one traceparent, replaced on each hop", hop.topic())
            .hasSize(1)
            .allSatisfy(v -> assertThat(v).contains(traceId));
      }

      try (DltReplayer replayer =
          DltReplayer.create(
              Map.of("bootstrap.servers", kafka.bootstrapServers()),
              db.dataSource(),
              new SimpleMeterRegistry(),
              java.time.Clock.systemUTC(),
              traces.openTelemetry())) {
        DltRecord letter = replayer.list(dlt, DltFilter.all()).get(0);
        assertThat(letter.traceId()).as("courier dlt list shows the trace").contains(traceId);
        assertThat(letter.render()).contains("trace=" + traceId);
        replayer.replay(
            replayer.plan(dlt, DltFilter.all(), ReplayTarget.failingGroup()),
            "ops@example.com",
            "card limit raised");
      }
      Running.until(consumer(settings, handler, traces), p -> p.succeeded() == 1, TIMEOUT);

      // OpenTelemetry's own consumer reads the dead letter in the same trace.
      try (Consumer<String, String> reader =
          telemetry.wrap(
              new KafkaConsumer<>(
                  kafka.consumerConfig(UniqueNames.group("otel-reader")),
                  new StringDeserializer(),
                  new StringDeserializer()))) {
        reader.assign(List.of(new TopicPartition(dlt, 0)));
        reader.seekToBeginning(List.of(new TopicPartition(dlt, 0)));
        long deadline = System.nanoTime() + TIMEOUT.toNanos();
        int read = 0;
        while (read == 0 && System.nanoTime() < deadline) {
          ConsumerRecords<String, String> records = reader.poll(Duration.ofMillis(500));
          for (ConsumerRecord<String, String> ignored : records) {
            read++; // iterating is what the instrumentation's process span wraps
          }
        }
        assertThat(read).isEqualTo(1);
      }

      List<SpanData> attempts =
          traces.all(
              s ->
                  s.getInstrumentationScopeInfo().getName().equals(CourierTracing.SCOPE)
                      && s.getName().startsWith("process "));
      assertThat(attempts)
          .hasSize(4)
          .allSatisfy(s -> assertThat(s.getTraceId()).isEqualTo(traceId));
      SpanData sent =
          traces
              .first(
                  s ->
                      s.getKind() == SpanKind.PRODUCER
                          && s.getInstrumentationScopeInfo().getName().contains("kafka-clients"))
              .orElseThrow();
      assertThat(sent.getParentSpanId()).isEqualTo(request.getSpanContext().getSpanId());
      SpanData first = attempts.get(0);
      SpanData second = attempts.get(1);
      SpanData third = attempts.get(2);
      SpanData afterReplay = attempts.get(3);
      assertThat(first.getParentSpanId())
          .as("Courier continues the instrumented producer's span")
          .isEqualTo(sent.getSpanId());
      assertThat(first.getName()).isEqualTo("process " + topic);
      assertThat(first.getAttributes().get(CourierTracing.ATTEMPT)).isEqualTo(1L);
      assertThat(first.getAttributes().get(CourierTracing.OUTCOME)).isEqualTo("retry");
      assertThat(first.getAttributes().get(CourierTracing.CLASSIFICATION)).startsWith("TRANSIENT");
      assertThat(first.getAttributes().get(CourierTracing.DELAY_MS)).isBetween(0L, 200L);
      assertThat(first.getAttributes().get(CourierTracing.NEXT_TOPIC))
          .isEqualTo(new RetryTopics(topic, group, 1).tier(1));
      assertThat(first.getAttributes().get(CourierTracing.CONSUMER_GROUP)).isEqualTo(group);
      assertThat(first.getAttributes().get(CourierTracing.OPERATION_KEY)).isEqualTo("c-1");
      assertThat(second.getParentSpanId()).isEqualTo(first.getSpanId());
      assertThat(second.getName()).isEqualTo("process " + new RetryTopics(topic, group, 1).tier(1));
      assertThat(second.getAttributes().get(CourierTracing.ATTEMPT)).isEqualTo(2L);
      assertThat(third.getParentSpanId()).isEqualTo(second.getSpanId());
      assertThat(third.getAttributes().get(CourierTracing.ATTEMPT)).isEqualTo(3L);
      assertThat(third.getAttributes().get(CourierTracing.OUTCOME)).isEqualTo("dead-letter");
      assertThat(third.getAttributes().get(CourierTracing.DLT_REASON)).isEqualTo("permanent");
      assertThat(third.getAttributes().get(CourierTracing.CLASSIFICATION)).startsWith("PERMANENT");

      SpanData replay = traces.first(s -> s.getName().startsWith("replay ")).orElseThrow();
      assertThat(replay.getTraceId()).isEqualTo(traceId);
      assertThat(replay.getParentSpanId())
          .as("the replay continues the dead letter's trace")
          .isEqualTo(third.getSpanId());
      assertThat(replay.getLinks())
          .extracting(l -> l.getSpanContext().getSpanId())
          .containsExactly(third.getSpanId());
      assertThat(replay.getAttributes().get(CourierTracing.REPLAY_REASON))
          .isEqualTo("card limit raised");
      assertThat(replay.getAttributes().get(CourierTracing.REPLAY_ACTOR))
          .isEqualTo("ops@example.com");
      assertThat(afterReplay.getParentSpanId()).isEqualTo(replay.getSpanId());
      assertThat(afterReplay.getAttributes().get(CourierTracing.OUTCOME)).isEqualTo("succeeded");
      assertThat(afterReplay.getName())
          .as("replayed to the first tier of the group that failed it, its attempts afresh")
          .isEqualTo("process " + new RetryTopics(topic, group, 1).tier(1));
      assertThat(afterReplay.getAttributes().get(CourierTracing.ATTEMPT)).isEqualTo(1L);

      SpanData otelProcess =
          traces
              .first(
                  s ->
                      s.getKind() == SpanKind.CONSUMER
                          && s.getInstrumentationScopeInfo().getName().contains("kafka-clients")
                          && s.getName().contains(dlt))
              .orElseThrow(
                  () ->
                      new AssertionError("no span of OpenTelemetry's consumer: " + traces.spans()));
      assertThat(otelProcess.getTraceId())
          .as("OpenTelemetry's consumer continues the dead letter's trace")
          .isEqualTo(traceId);
      assertThat(otelProcess.getParentSpanId()).isEqualTo(third.getSpanId());
    }
  }

  @Test
  void untracedTheLadderStartsNoSpanAndEachHopKeepsTheTraceparentItArrivedWith(KafkaBroker kafka)
      throws Exception {
    String topic = UniqueNames.topic("untraced");
    String group = UniqueNames.group("untraced");
    kafka.createTopic(topic, 1);
    String traceparent = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";
    try (KafkaProducer<String, String> producer =
        new KafkaProducer<>(
            kafka.producerConfig(), new StringSerializer(), new StringSerializer())) {
      ProducerRecord<String, String> r = new ProducerRecord<>(topic, 0, "k", "v");
      r.headers().add(CourierHeaders.TRACEPARENT, traceparent.getBytes(StandardCharsets.UTF_8));
      producer.send(r).get();
    }
    Map<String, Object> settings = LadderTestSettings.of(kafka.clientSettings(), topic, group);
    Running.until(
        RetryingConsumer.builder(settings, new StringDeserializer(), new StringDeserializer())
            .handler(
                record -> {
                  assertThat(Span.current().getSpanContext().isValid()).isFalse();
                  throw new IllegalStateException("busy");
                })
            .meterRegistry(new SimpleMeterRegistry())
            .build(),
        p -> p.deadLettered() == 1,
        TIMEOUT);
    ConsumerRecord<String, String> dead =
        kafka.readStrings(new RetryTopics(topic, group, 1).deadLetter(), 1, TIMEOUT).get(0);
    assertThat(headers(dead, CourierHeaders.TRACEPARENT)).containsExactly(traceparent);
  }

  private static RetryingConsumer<String, String> consumer(
      Map<String, Object> settings, RecordHandler<String, String> handler, TraceRecorder traces) {
    return RetryingConsumer.builder(settings, new StringDeserializer(), new StringDeserializer())
        .handler(handler)
        .meterRegistry(new SimpleMeterRegistry())
        .openTelemetry(traces.openTelemetry())
        .build();
  }

  private static List<String> headers(ConsumerRecord<?, ?> record, String name) {
    return StreamSupport.stream(record.headers().headers(name).spliterator(), false)
        .map(Header::value)
        .map(v -> new String(v, StandardCharsets.UTF_8))
        .toList();
  }
}
