package dev.courier.benchmarks;

import dev.courier.outbox.OutboxSchema;
import dev.courier.testkit.CourierInfra;
import dev.courier.testkit.InfraSettings;
import dev.courier.testkit.KafkaBroker;
import dev.courier.testkit.TestDatabase;
import dev.courier.testkit.UniqueNames;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.propagation.ContextPropagators;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.common.CompletableResultCode;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.BatchSpanProcessor;
import io.opentelemetry.sdk.trace.export.SpanExporter;
import io.opentelemetry.sdk.trace.samplers.Sampler;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What tracing costs: the outbox (insert to consumed, 500 events a transaction, each transaction in
 * a request span) and the retry ladder's main pass (every record failing once and forwarded to tier
 * 1, each record carrying a {@code traceparent}), with Courier given an OpenTelemetry SDK that
 * samples every span (a batch processor to an exporter that drops them) against Courier given none,
 * alternated round by round ({@link Rounds}) on the same broker and database. The request spans and
 * the records' {@code traceparent} are there in both, so the ratio is what Courier's own spans,
 * headers and outbox column cost. Target, in every round: traced at least 0.95x untraced.
 *
 * <p>Run: {@code java -cp modules/courier-benchmarks/target/benchmarks.jar
 * dev.courier.benchmarks.TracingBenchmark [outbox events] [ladder records] [rounds]}
 */
public final class TracingBenchmark {

  private static final String OUTBOX_OFF = "outbox, insert to consumed, untraced";
  private static final String OUTBOX_ON = "outbox, insert to consumed, traced";
  private static final String LADDER_OFF = "retry main pass, untraced";
  private static final String LADDER_ON = "retry main pass, traced";
  private static final byte[] TRACEPARENT =
      "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01".getBytes(StandardCharsets.UTF_8);

  private TracingBenchmark() {}

  public static void main(String[] args) throws Exception {
    int events = args.length > 0 ? Integer.parseInt(args[0]) : 50_000;
    int records = args.length > 1 ? Integer.parseInt(args[1]) : 50_000;
    int rounds = args.length > 2 ? Integer.parseInt(args[2]) : 5;
    AtomicLong exported = new AtomicLong();
    Map<String, Measurement> m;
    try (CourierInfra infra = CourierInfra.start(InfraSettings.fromEnvironment());
        TestDatabase db = infra.postgres().createDatabase("bench_tracing");
        OpenTelemetrySdk sdk = sdk(exported)) {
      OutboxSchema.migrate(db.dataSource());
      KafkaBroker kafka = infra.kafka();
      Tracer requests = sdk.getTracer("bench-application");
      m =
          Rounds.of(rounds)
              .variant(
                  OUTBOX_OFF,
                  w -> events / OutboxPipelineBenchmark.courier(kafka, db, events, null, requests))
              .variant(
                  OUTBOX_ON,
                  w -> events / OutboxPipelineBenchmark.courier(kafka, db, events, sdk, requests))
              .variant(LADDER_OFF, w -> mainPass(kafka, records, null))
              .variant(LADDER_ON, w -> mainPass(kafka, records, sdk))
              .run();
    }
    List<Check> checks =
        List.of(
            new Check(
                m.get(OUTBOX_ON).over("outbox traced / untraced", m.get(OUTBOX_OFF)),
                "x",
                Target.atLeast(0.95)),
            new Check(
                m.get(LADDER_ON).over("retry main pass traced / untraced", m.get(LADDER_OFF)),
                "x",
                Target.atLeast(0.95)));
    List<String> notes =
        List.of(
            String.format(
                Locale.ROOT,
                "%d outbox events (500 a transaction, one request span each) and %d ladder records"
                    + " per run; %d alternated rounds %s; every span sampled, %d exported in all",
                events,
                records,
                rounds,
                Rounds.warmUp(rounds),
                exported.get()));
    BenchmarkReport.write(
        Path.of("target", "benchmarks"),
        "tracing",
        "events/s",
        new ArrayList<>(m.values()),
        checks,
        notes);
  }

  private static double mainPass(KafkaBroker kafka, int records, OpenTelemetrySdk sdk)
      throws Exception {
    String topic = UniqueNames.topic("bench-traced");
    kafka.createTopic(topic, 1);
    RetryLadderBenchmark.produce(kafka, topic, records, 0, TRACEPARENT);
    List<Double> main = new ArrayList<>();
    RetryLadderBenchmark.ladder(kafka, topic, records, new ArrayList<>(), null, main, sdk);
    return main.get(0);
  }

  /** Every span sampled and batched to an exporter that counts and drops them. */
  private static OpenTelemetrySdk sdk(AtomicLong exported) {
    SpanExporter counting =
        new SpanExporter() {
          @Override
          public CompletableResultCode export(Collection<SpanData> spans) {
            exported.addAndGet(spans.size());
            return CompletableResultCode.ofSuccess();
          }

          @Override
          public CompletableResultCode flush() {
            return CompletableResultCode.ofSuccess();
          }

          @Override
          public CompletableResultCode shutdown() {
            return CompletableResultCode.ofSuccess();
          }
        };
    return OpenTelemetrySdk.builder()
        .setTracerProvider(
            SdkTracerProvider.builder()
                .setSampler(Sampler.alwaysOn())
                .addSpanProcessor(
                    // Room for every span of a run: none is dropped, all are exported.
                    BatchSpanProcessor.builder(counting).setMaxQueueSize(1 << 20).build())
                .build())
        .setPropagators(ContextPropagators.create(W3CTraceContextPropagator.getInstance()))
        .build();
  }
}
