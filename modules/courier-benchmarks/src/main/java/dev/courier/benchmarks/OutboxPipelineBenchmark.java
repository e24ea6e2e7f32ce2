package dev.courier.benchmarks;

import dev.courier.cli.Courier;
import dev.courier.outbox.OutboxRelay;
import dev.courier.outbox.OutboxRelayConfig;
import dev.courier.outbox.OutboxSchema;
import dev.courier.outbox.OutboxWriter;
import dev.courier.testkit.CourierInfra;
import dev.courier.testkit.InfraSettings;
import dev.courier.testkit.JvmWorker;
import dev.courier.testkit.KafkaBroker;
import dev.courier.testkit.TestDatabase;
import dev.courier.testkit.UniqueNames;
import dev.courier.testkit.WorkerProcess;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.distribution.HistogramSnapshot;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.trace.Tracer;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * The outbox pipeline against its baselines ({@link OutboxBaselines}: (a) raw pgoutput, (b)
 * Debezium's engine alone, (c) Debezium with EventRouter and a batching producer, (d) raw inserts,
 * (e) a raw producer), all in one run and alternated round by round ({@link Rounds}), each engine
 * fresh per run on a slot of its own; then commit-to-ack latency at a fixed 1,000 events/s run
 * after run, beside the raw stream's commit-to-decode at the same rate. Targets, in every round: at
 * least 0.9x (b) and (c), 0.5x (d); p99 at most 50 ms at 1,000/s.
 *
 * <p>Run: {@code java -cp modules/courier-benchmarks/target/benchmarks.jar
 * dev.courier.benchmarks.OutboxPipelineBenchmark [events] [seconds at 1,000/s] [rounds]}
 */
public final class OutboxPipelineBenchmark {

  private static final int PACED_RATE = 1_000;
  private static final Duration WARM_UP = Duration.ofSeconds(10);

  /** Debezium, the broker and the relay are a lot of code for the JIT: one round is not enough. */
  private static final int WARM_UP_ROUNDS = 2;

  private static final String RAW_PGOUTPUT = "(a) raw pgoutput stream, decoded";
  private static final String DEBEZIUM = "(b) Debezium engine, no-op handler";
  private static final String DEBEZIUM_KAFKA = "(c) Debezium + EventRouter + batching producer";
  private static final String RAW_INSERTS = "(d) raw batched inserts (500/tx)";
  private static final String RAW_PRODUCER = "(e) raw idempotent producer";
  private static final String COURIER = "courier outbox, insert to consumed";

  private OutboxPipelineBenchmark() {}

  public static void main(String[] args) throws Exception {
    int events = args.length > 0 ? Integer.parseInt(args[0]) : 100_000;
    Duration paced = Duration.ofSeconds(args.length > 1 ? Long.parseLong(args[1]) : 10);
    int rounds = args.length > 2 ? Integer.parseInt(args[2]) : 5;
    try (CourierInfra infra = CourierInfra.start(InfraSettings.fromEnvironment());
        TestDatabase db = infra.postgres().createDatabase("bench_outbox")) {
      OutboxSchema.migrate(db.dataSource());
      KafkaBroker kafka = infra.kafka();
      if (Boolean.getBoolean("bench.outbox.latency.only")) {
        double[] latency = pacedLatency(kafka, db, paced);
        System.out.printf(
            Locale.ROOT,
            "latency only: p50 %.1f ms, p99 %.1f ms; commit to capture p50 %.1f ms, p99 %.1f ms%n",
            latency[0],
            latency[1],
            latency[2],
            latency[3]);
        return;
      }
      Map<String, Measurement> m =
          Rounds.of(rounds, WARM_UP_ROUNDS)
              .variant(
                  RAW_PGOUTPUT,
                  warmUp ->
                      events
                          / OutboxBaselines.rawPgoutput(
                              db, events, OutboxWrites.Pacing.FULL_SPEED, ms -> {}))
              .variant(
                  DEBEZIUM, warmUp -> events / OutboxBaselines.debeziumAlone(kafka, db, events))
              .variant(
                  DEBEZIUM_KAFKA,
                  warmUp -> events / OutboxBaselines.debeziumToKafka(kafka, db, events))
              .variant(RAW_INSERTS, warmUp -> events / OutboxBaselines.rawInserts(db, events))
              .variant(RAW_PRODUCER, warmUp -> events / OutboxBaselines.rawProducer(kafka, events))
              .variant(COURIER, warmUp -> events / courier(kafka, db, events))
              .run();
      Latencies latencies = latencies(kafka, db, paced, rounds);
      String relayHeap = relayHeap(kafka, db, events);
      Measurement courier = m.get(COURIER);
      List<Check> checks =
          List.of(
              new Check(
                  courier.over("courier / (b) Debezium alone", m.get(DEBEZIUM)),
                  "x",
                  Target.atLeast(0.9)),
              new Check(
                  courier.over("courier / (c) Debezium + producer", m.get(DEBEZIUM_KAFKA)),
                  "x",
                  Target.atLeast(0.9)),
              new Check(
                  courier.over("courier / (d) raw inserts", m.get(RAW_INSERTS)),
                  "x",
                  Target.atLeast(0.5)),
              Check.reported(courier.over("courier / (a) raw pgoutput", m.get(RAW_PGOUTPUT)), "x"),
              Check.reported(
                  new Measurement("commit-to-ack p50 at 1,000 events/s", latencies.ackP50), " ms"),
              new Check(
                  new Measurement("commit-to-ack p99 at 1,000 events/s", latencies.ackP99),
                  " ms",
                  Target.atMost(50)),
              Check.reported(
                  new Measurement("of which commit to capture (relay), p99", latencies.captureP99),
                  " ms"),
              Check.reported(
                  new Measurement(
                      "(a) commit to decode at 1,000 events/s, p50", latencies.decodeP50),
                  " ms"),
              Check.reported(
                  new Measurement(
                      "(a) commit to decode at 1,000 events/s, p99", latencies.decodeP99),
                  " ms"));
      List<String> notes = new ArrayList<>();
      notes.add(
          String.format(
              Locale.ROOT,
              "%d events per run, %d alternated rounds %s; latency: %d runs of"
                  + " %d s at 1,000 events/s, each on a fresh, warmed relay, alternated with the raw"
                  + " stream (a) at the same rate",
              events,
              rounds,
              Rounds.warmUp(rounds, WARM_UP_ROUNDS),
              rounds,
              paced.toSeconds()));
      notes.add(relayHeap);
      BenchmarkReport.write(
          Path.of("target", "benchmarks"),
          "outbox",
          "events/s",
          new ArrayList<>(m.values()),
          checks,
          notes);
    }
  }

  /**
   * Per run: the relay's commit-to-ack and commit-to-capture, the raw stream's commit-to-decode.
   */
  private record Latencies(
      List<Double> ackP50,
      List<Double> ackP99,
      List<Double> captureP99,
      List<Double> decodeP50,
      List<Double> decodeP99) {}

  private static Latencies latencies(KafkaBroker kafka, TestDatabase db, Duration paced, int rounds)
      throws Exception {
    Latencies l =
        new Latencies(
            new ArrayList<>(),
            new ArrayList<>(),
            new ArrayList<>(),
            new ArrayList<>(),
            new ArrayList<>());
    int pacedEvents = (int) (PACED_RATE * paced.toSeconds());
    // A single round is a smoke run: no warm-up.
    for (int run = rounds > 1 ? 0 : 1; run <= rounds; run++) {
      boolean warmUp = run == 0;
      double[] relay = pacedLatency(kafka, db, warmUp ? Duration.ofSeconds(3) : paced);
      List<Long> decode = new CopyOnWriteArrayList<>();
      OutboxBaselines.rawPgoutput(
          db,
          warmUp ? PACED_RATE * 3 : pacedEvents,
          OutboxWrites.Pacing.paced(PACED_RATE),
          decode::add);
      if (!warmUp) {
        l.ackP50.add(relay[0]);
        l.ackP99.add(relay[1]);
        l.captureP99.add(relay[3]);
        List<Long> sorted = new ArrayList<>(decode);
        Collections.sort(sorted);
        l.decodeP50.add((double) sorted.get(sorted.size() / 2));
        l.decodeP99.add(
            (double)
                sorted.get(Math.min(sorted.size() - 1, (int) Math.ceil(sorted.size() * 0.99) - 1)));
      }
    }
    return l;
  }

  /** Insert to consumed through a relay of its own, started for this run. */
  private static double courier(KafkaBroker kafka, TestDatabase db, int events) throws Exception {
    return courier(kafka, db, events, null, null);
  }

  /**
   * As the other; with {@code tracing} the writer and the relay trace, and with {@code requests}
   * each transaction runs inside a request span (the application's, whether Courier traces or not).
   */
  static double courier(
      KafkaBroker kafka, TestDatabase db, int events, OpenTelemetry tracing, Tracer requests)
      throws Exception {
    Map<String, String> settings = relaySettings(kafka, db);
    String topic = settings.get(OutboxRelayConfig.TOPIC_PREFIX) + ".account";
    kafka.createTopic(topic, 1);
    OutboxWriter.Builder writer = OutboxWriter.builder();
    if (tracing != null) {
      writer.openTelemetry(tracing);
    }
    try {
      try (OutboxRelay relay =
          OutboxRelay.create(settings, new SimpleMeterRegistry(), Clock.systemUTC(), tracing)) {
        relay.awaitStreaming(Duration.ofSeconds(60));
        return insertAndConsume(kafka, db, topic, events, writer.build(), requests);
      }
    } finally {
      PgoutputSlots.dropSlot(db, settings);
    }
  }

  private static double insertAndConsume(
      KafkaBroker kafka, TestDatabase db, String topic, int events) throws Exception {
    return insertAndConsume(kafka, db, topic, events, OutboxWriter.create(), null);
  }

  private static double insertAndConsume(
      KafkaBroker kafka,
      TestDatabase db,
      String topic,
      int events,
      OutboxWriter writer,
      Tracer requests)
      throws Exception {
    try (KafkaConsumer<byte[], byte[]> consumer =
        new KafkaConsumer<>(
            kafka.consumerConfig(UniqueNames.group("bench")),
            new ByteArrayDeserializer(),
            new ByteArrayDeserializer())) {
      consumer.subscribe(List.of(topic));
      consumer.poll(Duration.ofMillis(100));
      consumer.seekToEnd(consumer.assignment());
      consumer.assignment().forEach(consumer::position);
      long started = System.nanoTime();
      OutboxWrites.writeEvents(db.dataSource(), writer, events, requests);
      long received = 0;
      while (received < events) {
        received += consumer.poll(Duration.ofMillis(100)).count();
      }
      return (System.nanoTime() - started) / 1e9;
    }
  }

  /**
   * Commit-to-ack at 1,000 events/s on a relay of its own, measured in steady state: the topic
   * exists (as a deployment's KafkaTopic makes it), the relay runs {@link #WARM_UP} of the same
   * load first, and only what it acknowledges after that counts, read as the difference of its
   * timers' histograms. A relay's first seconds pay the JIT, the producer's metadata and the
   * engine's start (events there waited up to 650 ms); the relay's start is measured apart, as
   * catch-up, by {@link OutboxProductionRun}.
   *
   * @return commit-to-ack p50 and p99, commit-to-capture p50 and p99, in ms (histogram bucket
   *     bounds, which Micrometer spaces about 10% apart)
   */
  private static double[] pacedLatency(KafkaBroker kafka, TestDatabase db, Duration paced)
      throws Exception {
    Map<String, String> settings = relaySettings(kafka, db);
    String topic = settings.get(OutboxRelayConfig.TOPIC_PREFIX) + ".account";
    kafka.createTopic(topic, 1);
    // Prometheus's registry keeps the histogram buckets (a simple registry keeps percentiles only).
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    registry.config().meterFilter(Histograms.NO_ROTATION);
    try (OutboxRelay relay = OutboxRelay.create(settings, registry, Clock.systemUTC())) {
      relay.awaitStreaming(Duration.ofSeconds(60));
      Timer ack = registry.get("courier.outbox.commit.to.ack").timer();
      Timer capture = registry.get("courier.outbox.commit.to.capture").timer();
      // As long as the measurement, up to 10 s (a smoke run's 1 s measures nothing anyway).
      fixedLoad(db, paced.compareTo(WARM_UP) < 0 ? paced : WARM_UP, ack, 0);
      HistogramSnapshot ackBefore = ack.takeSnapshot();
      HistogramSnapshot captureBefore = capture.takeSnapshot();
      fixedLoad(db, paced, ack, ackBefore.count());
      double[] acked = Histograms.percentiles(ackBefore, ack.takeSnapshot(), 0.5, 0.99);
      double[] captured = Histograms.percentiles(captureBefore, capture.takeSnapshot(), 0.5, 0.99);
      return new double[] {acked[0], acked[1], captured[0], captured[1]};
    } finally {
      PgoutputSlots.dropSlot(db, settings);
    }
  }

  /** 1,000 events/s for the duration, then waits until the relay acknowledged them. */
  private static void fixedLoad(TestDatabase db, Duration duration, Timer ack, long before)
      throws Exception {
    int expected = (int) (PACED_RATE * duration.toSeconds());
    OutboxWrites.writePaced(db.dataSource(), expected, PACED_RATE);
    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    while (ack.count() < before + expected && System.nanoTime() < deadline) {
      // Polling the relay's timer; the interval bounds the CPU the harness takes from it.
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
    }
  }

  /**
   * The relay as a service: its own JVM capped at 512 MiB relays {@code events} written at full
   * speed while jcmd samples its heap.
   */
  private static String relayHeap(KafkaBroker kafka, TestDatabase db, int events) throws Exception {
    Map<String, String> settings = relaySettings(kafka, db);
    List<String> args = new ArrayList<>(List.of("relay", "--set", "relay.http.port=0"));
    settings.forEach((k, v) -> args.addAll(List.of("--set", k + "=" + v)));
    try (WorkerProcess relay =
        JvmWorker.of(Courier.class)
            .name("outbox-relay")
            .jvmOption("-Xmx512m")
            .args(args.toArray(String[]::new))
            .start()) {
      long deadline = System.nanoTime() + Duration.ofMinutes(2).toNanos();
      while (!relay.output().contains(Courier.RELAY_STREAMING)) {
        if (!relay.isAlive() || System.nanoTime() > deadline) {
          return "relay service heap: the relay did not start: " + relay.output();
        }
        LockSupport.parkNanos(Duration.ofMillis(100).toNanos());
      }
      String topic = settings.get(OutboxRelayConfig.TOPIC_PREFIX) + ".account";
      try (HeapSampler heap = new HeapSampler(relay.pid())) {
        double seconds = insertAndConsume(kafka, db, topic, events);
        heap.close();
        return String.format(
            Locale.ROOT,
            "relay service: %d events relayed in %.1f s in its own JVM capped at -Xmx512m; peak"
                + " heap used %d MiB (target <= 512 MiB)",
            events,
            seconds,
            heap.peakMiB());
      }
    } finally {
      PgoutputSlots.dropSlot(db, settings);
    }
  }

  static Map<String, String> relaySettings(KafkaBroker kafka, TestDatabase db) {
    return relaySettings(
        kafka.bootstrapServers(), db.jdbcUrl(), db.username(), db.password(), "bench");
  }

  /**
   * A relay's settings with a fresh prefix (topics, slot, publication); {@code
   * -Dbench.relay.<key>=<value>} overrides one for experiments.
   */
  static Map<String, String> relaySettings(
      String bootstrap, String jdbcUrl, String user, String password, String prefix) {
    Map<String, String> settings =
        new HashMap<>(
            OutboxRelayConfig.settings(
                bootstrap, jdbcUrl, user, password, UniqueNames.topic(prefix).replace('-', '_')));
    System.getProperties()
        .stringPropertyNames()
        .forEach(
            k -> {
              if (k.startsWith("bench.relay.")) {
                settings.put(k.substring("bench.relay.".length()), System.getProperty(k));
              }
            });
    return settings;
  }
}
