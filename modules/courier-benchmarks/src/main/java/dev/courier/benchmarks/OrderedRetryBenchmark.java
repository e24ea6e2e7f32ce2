package dev.courier.benchmarks;

import dev.courier.retry.RecordHandler;
import dev.courier.retry.RetryConfig;
import dev.courier.retry.RetryingConsumer;
import dev.courier.testkit.CourierInfra;
import dev.courier.testkit.InfraSettings;
import dev.courier.testkit.KafkaBroker;
import dev.courier.testkit.UniqueNames;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import java.sql.SQLTransientConnectionException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Key order's cost ({@code retry.ordering=key}) against the unordered ladder on the same records,
 * alternated round by round: records of 1,000 keys, 1% or 10% of them failing once (transient) with
 * a 20 ms delay. Figure: records/s from the first call to the last record done (the last successful
 * call: every record succeeded once), which is the main pass plus the tier plus, with key order,
 * the waiting records' release. Targets: key order at least 0.8x of unordered at 1% failures, 0.5x
 * at 10%, every round.
 *
 * <p>Run: {@code java -cp modules/courier-benchmarks/target/benchmarks.jar
 * dev.courier.benchmarks.OrderedRetryBenchmark [records] [rounds]}
 */
public final class OrderedRetryBenchmark {

  static final long DELAY_MS = 20;
  static final int KEYS = 1_000;

  private OrderedRetryBenchmark() {}

  /** Per failure rate, key order's blocked-key state writes per retried record (last round). */
  private static final Map<Integer, Double> WRITES_PER_RETRY = new ConcurrentHashMap<>();

  /** Per failure rate, the times key order met a bound and held the partition (last round). */
  private static final Map<Integer, Double> OVERFLOWS = new ConcurrentHashMap<>();

  /**
   * Per variant, how long after its last successful call the ladder's progress showed every record
   * done (last round). Not in the figure, which ends at that call: until 2026-12-07 it ended when
   * {@code runUntil} returned, and key order's last released records are counted before the poll
   * that follows them, whose wait then came into the figure.
   */
  private static final Map<String, Long> COUNTED_AFTER_MS = new ConcurrentHashMap<>();

  private static String name(String ordering, int percent) {
    return (ordering.equals("key") ? "key order" : "unordered") + ", " + percent + "% failing once";
  }

  public static void main(String[] args) throws Exception {
    int records = args.length > 0 ? Integer.parseInt(args[0]) : 50_000;
    int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 5;
    Map<String, Measurement> m;
    try (CourierInfra infra = CourierInfra.start(InfraSettings.fromEnvironment())) {
      KafkaBroker kafka = infra.kafka();
      Rounds r = Rounds.of(rounds);
      for (int percent : new int[] {1, 10}) {
        for (String ordering : new String[] {"none", "key"}) {
          r.variant(name(ordering, percent), warmUp -> run(kafka, records, percent, ordering));
        }
      }
      m = r.run();
    }
    List<Check> checks =
        List.of(
            new Check(
                m.get(name("key", 1)).over("key order / unordered at 1%", m.get(name("none", 1))),
                "x",
                Target.atLeast(0.8)),
            new Check(
                m.get(name("key", 10))
                    .over("key order / unordered at 10%", m.get(name("none", 10))),
                "x",
                Target.atLeast(0.5)));
    BenchmarkReport.write(
        Path.of("target", "benchmarks"),
        "retry-ordering",
        "records/s",
        new ArrayList<>(m.values()),
        checks,
        List.of(
            String.format(
                Locale.ROOT,
                "%d records per run over %d keys on one partition, fixed delay %d ms, the failing"
                    + " records picked by offset (the same in every variant); %d alternated"
                    + " rounds %s",
                records,
                KEYS,
                DELAY_MS,
                rounds,
                Rounds.warmUp(rounds)),
            String.format(
                Locale.ROOT,
                "blocked-key state writes per retried record (key order, last round): %.1f at 1%%,"
                    + " %.1f at 10%% (the keys that changed, written at most every 100 ms)",
                WRITES_PER_RETRY.getOrDefault(1, 0.0),
                WRITES_PER_RETRY.getOrDefault(10, 0.0)),
            String.format(
                Locale.ROOT,
                "the partition held at a key-order bound (last round): %.0f times at 1%%, %.0f at"
                    + " 10%%",
                OVERFLOWS.getOrDefault(1, 0.0),
                OVERFLOWS.getOrDefault(10, 0.0)),
            "every record counted done after the last successful call, not in the figure (last"
                + " round): "
                + new java.util.TreeMap<>(COUNTED_AFTER_MS)
                    .entrySet().stream()
                        .map(e -> e.getKey() + " " + e.getValue() + " ms")
                        .collect(java.util.stream.Collectors.joining(", "))));
  }

  private static double run(KafkaBroker kafka, int records, int percent, String ordering)
      throws Exception {
    Map<String, Object> settings = ladderOnRecords(kafka, "bench-order", records, ordering);
    Map<Long, Boolean> failedOnce = new ConcurrentHashMap<>();
    AtomicLong first = new AtomicLong();
    AtomicLong lastDone = new AtomicLong();
    RecordHandler<byte[], byte[]> handler =
        (ConsumerRecord<byte[], byte[]> r) -> {
          first.compareAndSet(0, System.nanoTime());
          boolean fails = fails(r.offset(), percent);
          if (fails && failedOnce.putIfAbsent(r.offset(), Boolean.TRUE) == null) {
            throw new SQLTransientConnectionException("fails once");
          }
          lastDone.set(System.nanoTime());
        };
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    ExecutorService thread = Executors.newSingleThreadExecutor();
    AtomicLong done = new AtomicLong();
    try (RetryingConsumer<byte[], byte[]> consumer =
        RetryingConsumer.builder(settings, new ByteArrayDeserializer(), new ByteArrayDeserializer())
            .handler(handler)
            .meterRegistry(registry)
            .build()) {
      Future<?> loop = thread.submit(() -> consumer.runUntil(p -> doneAt(done, p, records)));
      loop.get(10, TimeUnit.MINUTES);
    } finally {
      thread.shutdown();
    }
    COUNTED_AFTER_MS.put(name(ordering, percent), (done.get() - lastDone.get()) / 1_000_000);
    if (ordering.equals("key")) {
      double writes = registry.get("courier.retry.ordering.state.writes").counter().count();
      double retried = registry.find("courier.retry.attempts").tag("tier", "1").counter().count();
      WRITES_PER_RETRY.put(percent, writes / retried);
      OVERFLOWS.put(percent, registry.get("courier.retry.ordering.overflows").counter().count());
    }
    return records / ((lastDone.get() - first.get()) / 1e9);
  }

  /** Whether every record is done; the first time it is, when (the end of the figure's time). */
  static boolean doneAt(AtomicLong done, dev.courier.retry.RetryProgress p, long records) {
    if (p.succeeded() < records) {
      return false;
    }
    done.compareAndSet(0, System.nanoTime());
    return true;
  }

  /**
   * A one-partition topic of {@code records} records over {@link #KEYS} keys, and the ladder's
   * settings on it with {@code ordering}; {@code -Dbench.retry.<setting>=<value>} tries a ladder
   * setting (a lever, measured in both variants).
   */
  static Map<String, Object> ladderOnRecords(
      KafkaBroker kafka, String prefix, int records, String ordering) throws Exception {
    String topic = UniqueNames.topic(prefix);
    kafka.createTopic(topic, 1);
    try (KafkaProducer<byte[], byte[]> producer =
        new KafkaProducer<>(
            kafka.producerConfig(), new ByteArraySerializer(), new ByteArraySerializer())) {
      for (int i = 0; i < records; i++) {
        producer.send(
            new ProducerRecord<>(
                topic, ("k" + (i % KEYS)).getBytes(), ("{\"amount\":" + i + "}").getBytes()));
      }
      producer.flush();
    }
    Map<String, Object> settings =
        RetryLadderBenchmark.ladderSettings(
            kafka, UniqueNames.group(prefix), topic, records, DELAY_MS);
    settings.put(RetryConfig.ORDERING, ordering);
    System.getProperties()
        .stringPropertyNames()
        .forEach(
            property -> {
              if (property.startsWith("bench.retry.")) {
                settings.put(property.substring("bench.".length()), System.getProperty(property));
              }
            });
    return settings;
  }

  /** Whether the record at {@code offset} fails once: the same offsets in every run. */
  static boolean fails(long offset, int percent) {
    // Golden-ratio hashing spreads the failing offsets evenly.
    return Math.floorMod(offset * 0x9E3779B97F4A7C15L, 100) < percent;
  }
}
