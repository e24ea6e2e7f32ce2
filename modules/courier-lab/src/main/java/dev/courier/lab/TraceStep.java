package dev.courier.lab;

import dev.courier.core.CourierTracing;
import dev.courier.core.PermanentError;
import dev.courier.outbox.OutboxEvent;
import dev.courier.outbox.OutboxRelay;
import dev.courier.outbox.OutboxRelayConfig;
import dev.courier.outbox.OutboxSchema;
import dev.courier.outbox.OutboxWriter;
import dev.courier.retry.DltFilter;
import dev.courier.retry.DltRecord;
import dev.courier.retry.DltReplayer;
import dev.courier.retry.ReplayTarget;
import dev.courier.retry.RetryConfig;
import dev.courier.retry.RetryTopics;
import dev.courier.retry.RetryingConsumer;
import dev.courier.testkit.KafkaBroker;
import dev.courier.testkit.TestDatabase;
import dev.courier.testkit.TraceRecorder;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.context.Scope;
import io.opentelemetry.sdk.trace.data.SpanData;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.Statement;
import java.time.Clock;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * Step 6: one trace from the request that wrote an order, through the outbox, the relay, every
 * retry attempt and the DLT, to the operator's replay, recorded by OpenTelemetry's SDK and printed
 * as a tree.
 */
final class TraceStep implements LabStep {

  static final String PREFIX = "lab_trace";
  static final String TOPIC = PREFIX + ".order";
  static final List<String> SHOWN =
      List.of(
          CourierTracing.ATTEMPT.getKey(),
          CourierTracing.OUTCOME.getKey(),
          CourierTracing.CLASSIFICATION.getKey(),
          CourierTracing.DELAY_MS.getKey(),
          CourierTracing.DLT_REASON.getKey(),
          CourierTracing.REPLAY_REASON.getKey());

  /** What the flow left: the trace, the request's span and the dead letter's trace id. */
  record Flow(String traceId, String requestSpanId, Optional<String> deadLetterTraceId) {}

  @Override
  public String id() {
    return "trace";
  }

  @Override
  public String title() {
    return "Tracing: one trace from the request that wrote an order to its replay";
  }

  @Override
  public String why() {
    return "The outbox writer stores the caller's trace context in the row (Debezium's"
        + " tracingspancontext column); the relay's publish span continues it from the commit to"
        + " Kafka's acknowledgement; every attempt of the retry ladder is a span in that trace,"
        + " each hop carrying the failed attempt's traceparent (one, replaced); the dead letter"
        + " keeps it, and the replay span continues it, linked to the attempt that failed.";
  }

  @Override
  public void run(Lab lab) throws Exception {
    try (TraceRecorder traces = new TraceRecorder()) {
      Flow flow = flow(lab.kafka(), lab.db(), traces);
      List<SpanData> spans = traces.trace(flow.traceId());
      lab.expect(
          "trace id on the dead letter (courier dlt list shows it)",
          flow.deadLetterTraceId(),
          Optional.of(flow.traceId()));
      lab.expect(
          "spans of Courier in the request's trace (publish, 4 attempts, replay)",
          spans.stream()
              .filter(s -> s.getInstrumentationScopeInfo().getName().equals(CourierTracing.SCOPE))
              .count(),
          6L);
      lab.expect(
          "span names in start order",
          spans.stream().map(s -> s.getName().split(" ")[0]).toList(),
          List.of("POST", "publish", "process", "process", "process", "replay", "process"));
      for (String line : traces.tree(flow.traceId(), SHOWN).split(System.lineSeparator())) {
        lab.say(line);
      }
    }
  }

  /**
   * Writes an order and its event under a request span, relays it, fails it twice transiently and
   * once permanently, replays it with a reason, and lets it succeed.
   */
  static Flow flow(KafkaBroker kafka, TestDatabase db, TraceRecorder traces) throws Exception {
    OutboxSchema.migrate(db.dataSource());
    kafka.createTopic(TOPIC, 1); // the ladder's tiers are made like it
    try (Connection c = db.connection();
        Statement s = c.createStatement()) {
      s.execute("CREATE TABLE IF NOT EXISTS lab_trace_orders (id text PRIMARY KEY, total int)");
    }
    Map<String, String> relaySettings =
        OutboxRelayConfig.settings(
            kafka.bootstrapServers(), db.jdbcUrl(), db.username(), db.password(), PREFIX);
    try (OutboxRelay relay =
        OutboxRelay.create(
            relaySettings, new SimpleMeterRegistry(), Clock.systemUTC(), traces.openTelemetry())) {
      if (!relay.awaitStreaming(Lab.TIMEOUT)) {
        throw new IllegalStateException("the relay did not stream within " + Lab.TIMEOUT);
      }
      Span request =
          traces
              .openTelemetry()
              .getTracer("lab")
              .spanBuilder("POST /orders")
              .setSpanKind(SpanKind.SERVER)
              .startSpan();
      try (Scope ignored = request.makeCurrent();
          Connection c = db.connection()) {
        c.setAutoCommit(false);
        try (PreparedStatement ps =
            c.prepareStatement("INSERT INTO lab_trace_orders VALUES ('order-1', 42)")) {
          ps.executeUpdate();
        }
        OutboxWriter.builder()
            .openTelemetry(traces.openTelemetry())
            .meterRegistry(new SimpleMeterRegistry())
            .build()
            .write(
                c,
                OutboxEvent.builder()
                    .aggregate("order", "order-1")
                    .eventType("OrderPlaced")
                    .operationKey("order-1-placed")
                    .json("{\"total\":42}")
                    .build());
        c.commit();
      } finally {
        request.end();
      }
      String traceId = request.getSpanContext().getTraceId();
      AtomicInteger calls = new AtomicInteger();
      Map<String, Object> ladder = new HashMap<>(kafka.clientSettings());
      ladder.put(RetryConfig.GROUP_ID, PREFIX + "-billing");
      ladder.put(RetryConfig.TOPIC, TOPIC);
      ladder.put(RetryConfig.MAX_ATTEMPTS, 4);
      ladder.put(RetryConfig.BACKOFF_TYPE, "fixed");
      ladder.put(RetryConfig.BACKOFF_INITIAL_MS, 200);
      ladder.put(RetryConfig.BACKOFF_MAX_MS, 200);
      run(ladder, traces, calls, p -> p.deadLettered() >= 1);
      Optional<String> deadLetterTrace;
      try (DltReplayer replayer =
          DltReplayer.create(
              Map.of(RetryConfig.BOOTSTRAP_SERVERS, kafka.bootstrapServers()),
              db.dataSource(),
              new SimpleMeterRegistry(),
              Clock.systemUTC(),
              traces.openTelemetry())) {
        String dlt = new RetryTopics(TOPIC, PREFIX + "-billing", 3).deadLetter();
        List<DltRecord> letters = replayer.list(dlt, DltFilter.all());
        deadLetterTrace = letters.isEmpty() ? Optional.empty() : letters.get(0).traceId();
        replayer.replay(
            replayer.plan(dlt, DltFilter.all(), ReplayTarget.failingGroup()),
            "lab",
            "the card issuer is back");
      }
      run(ladder, traces, calls, p -> p.succeeded() >= 1);
      return new Flow(traceId, request.getSpanContext().getSpanId(), deadLetterTrace);
    }
  }

  /** The billing consumer: busy twice, then a declined card, then (after the replay) fine. */
  private static void run(
      Map<String, Object> settings,
      TraceRecorder traces,
      AtomicInteger calls,
      Predicate<dev.courier.retry.RetryProgress> done) {
    long deadline = System.nanoTime() + Lab.TIMEOUT.toNanos();
    try (RetryingConsumer<String, String> billing =
        RetryingConsumer.builder(settings, new StringDeserializer(), new StringDeserializer())
            .handler(
                record -> {
                  int call = calls.incrementAndGet();
                  if (call <= 2) {
                    throw new IllegalStateException("payment gateway busy");
                  }
                  if (call == 3) {
                    throw new Declined();
                  }
                })
            .meterRegistry(new SimpleMeterRegistry())
            .openTelemetry(traces.openTelemetry())
            .build()) {
      billing.runUntil(p -> done.test(p) || System.nanoTime() > deadline);
      if (!done.test(billing.progress())) {
        throw new IllegalStateException("the billing consumer did not get there in " + Lab.TIMEOUT);
      }
    }
  }

  /** A refusal no retry fixes. */
  static final class Declined extends RuntimeException implements PermanentError {
    Declined() {
      super("card declined");
    }

    @Override
    public String reason() {
      return "declined";
    }
  }
}
