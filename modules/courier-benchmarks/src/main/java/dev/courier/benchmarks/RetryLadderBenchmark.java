package dev.courier.benchmarks;

import dev.courier.core.CourierHeaders;
import dev.courier.retry.RecordHandler;
import dev.courier.retry.RetryConfig;
import dev.courier.retry.RetryingConsumer;
import dev.courier.testkit.CourierInfra;
import dev.courier.testkit.InfraSettings;
import dev.courier.testkit.KafkaBroker;
import dev.courier.testkit.UniqueNames;
import java.nio.file.Path;
import java.sql.SQLTransientConnectionException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * The retry ladder against a raw consume-produce-commit loop on the same records: every record
 * fails once (transient) and passes through tier 1 with a fixed delay. Figures: records/s through
 * the tier (first to last tier execution) and hop lateness (execution minus due time) p50/p99.
 * Targets: never early, p99 lateness at most 100 ms, at least 0.5x the raw loop.
 *
 * <p>Run: {@code java -cp modules/courier-benchmarks/target/benchmarks.jar
 * dev.courier.benchmarks.RetryLadderBenchmark [records] [runs]}
 */
public final class RetryLadderBenchmark {

  private static final long DELAY_MS = 500;

  private RetryLadderBenchmark() {}

  public static void main(String[] args) throws Exception {
    int records = args.length > 0 ? Integer.parseInt(args[0]) : 5_000;
    int runs = args.length > 1 ? Integer.parseInt(args[1]) : 3;
    List<Measurement> rows = new ArrayList<>();
    List<String> notes = new ArrayList<>();
    List<Double> raw = new ArrayList<>();
    List<Double> ladder = new ArrayList<>();
    List<Duration> lateness = new CopyOnWriteArrayList<>();
    try (CourierInfra infra = CourierInfra.start(InfraSettings.fromEnvironment())) {
      KafkaBroker kafka = infra.kafka();
      for (int run = 0; run <= runs; run++) {
        String topic = UniqueNames.topic("bench-ladder");
        kafka.createTopic(topic, 1);
        kafka.createTopic(topic + ".copy", 1);
        produce(kafka, topic, records);
        double rawRate = rawLoop(kafka, topic, records);
        List<Duration> late = new CopyOnWriteArrayList<>();
        double ladderRate = ladder(kafka, topic, records, late);
        if (run > 0) { // run 0 warms up
          raw.add(rawRate);
          ladder.add(ladderRate);
          lateness.addAll(late);
        }
      }
    }
    rows.add(new Measurement("raw consume-produce-commit loop", raw));
    rows.add(new Measurement("courier retry tier (records/s through tier 1)", ladder));
    List<Duration> sorted = new ArrayList<>(lateness);
    Collections.sort(sorted);
    Duration min = sorted.get(0);
    Duration p50 = sorted.get(sorted.size() / 2);
    Duration p99 =
        sorted.get(Math.min(sorted.size() - 1, (int) Math.ceil(sorted.size() * 0.99) - 1));
    notes.add(
        String.format(
            Locale.ROOT,
            "%d records per run, each failing once, fixed delay %d ms; %d measured runs after 1 warm-up",
            records,
            DELAY_MS,
            runs));
    notes.add(
        String.format(
            Locale.ROOT,
            "tier / raw loop = %.2f (target >= 0.50)",
            rows.get(1).median() / rows.get(0).median()));
    notes.add(
        String.format(
            Locale.ROOT,
            "hop lateness over %d hops: min %d ms (never early: %s), p50 %d ms, p99 %d ms (target <= 100 ms)",
            sorted.size(),
            min.toMillis(),
            !min.isNegative(),
            p50.toMillis(),
            p99.toMillis()));
    BenchmarkReport.write(Path.of("target", "benchmarks"), "retry", "records/s", rows, notes);
  }

  private static double ladder(
      KafkaBroker kafka, String topic, int records, List<Duration> lateness) throws Exception {
    Map<String, Object> settings = new HashMap<>();
    settings.put(RetryConfig.BOOTSTRAP_SERVERS, kafka.bootstrapServers());
    settings.put(RetryConfig.GROUP_ID, UniqueNames.group("bench-ladder"));
    settings.put(RetryConfig.TOPIC, topic);
    settings.put(RetryConfig.MAX_ATTEMPTS, 2);
    settings.put(RetryConfig.BACKOFF, "fixed");
    settings.put(RetryConfig.BACKOFF_INITIAL_MS, DELAY_MS);
    settings.put(RetryConfig.BACKOFF_MAX_MS, DELAY_MS);
    settings.put(RetryConfig.BUDGET_CAPACITY, records);
    settings.put(RetryConfig.BUDGET_REFILL, 1_000_000.0);
    settings.put("kafka." + ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 500);
    Map<Long, Boolean> failedOnce = new ConcurrentHashMap<>();
    AtomicLong firstTier = new AtomicLong();
    AtomicLong lastTier = new AtomicLong();
    AtomicLong tierCalls = new AtomicLong();
    RecordHandler<byte[], byte[]> handler =
        (ConsumerRecord<byte[], byte[]> r) -> {
          if (failedOnce.putIfAbsent(r.offset(), Boolean.TRUE) == null) {
            throw new SQLTransientConnectionException("fails once");
          }
          long now = System.nanoTime();
          firstTier.compareAndSet(0, now);
          lastTier.set(now);
          tierCalls.incrementAndGet();
          CourierHeaders.text(r.headers(), CourierHeaders.DUE)
              .map(Long::parseLong)
              .map(java.time.Instant::ofEpochMilli)
              .ifPresent(due -> lateness.add(Duration.between(due, Instant.now())));
        };
    ExecutorService thread = Executors.newSingleThreadExecutor();
    try (RetryingConsumer<byte[], byte[]> consumer =
        RetryingConsumer.builder(settings, new ByteArrayDeserializer(), new ByteArrayDeserializer())
            .handler(handler)
            .build()) {
      Future<?> loop = thread.submit(() -> consumer.runUntil(p -> p.succeeded() >= records));
      loop.get(10, TimeUnit.MINUTES);
    } finally {
      thread.shutdown();
    }
    double seconds = (lastTier.get() - firstTier.get()) / 1e9;
    return tierCalls.get() / Math.max(seconds, 1e-3);
  }

  /** Read, copy to another topic, commit: what one tier does at the least. */
  private static double rawLoop(KafkaBroker kafka, String topic, int records) {
    Map<String, Object> cc = new HashMap<>(kafka.consumerConfig(UniqueNames.group("bench-raw")));
    cc.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 500);
    long seen = 0;
    long started = 0;
    try (KafkaConsumer<byte[], byte[]> consumer =
            new KafkaConsumer<>(cc, new ByteArrayDeserializer(), new ByteArrayDeserializer());
        KafkaProducer<byte[], byte[]> producer =
            new KafkaProducer<>(
                kafka.producerConfig(), new ByteArraySerializer(), new ByteArraySerializer())) {
      consumer.subscribe(List.of(topic));
      while (seen < records) {
        var batch = consumer.poll(Duration.ofMillis(200));
        if (batch.isEmpty()) {
          continue;
        }
        if (started == 0) {
          started = System.nanoTime();
        }
        List<Future<?>> acks = new ArrayList<>();
        for (ConsumerRecord<byte[], byte[]> r : batch) {
          acks.add(
              producer.send(
                  new ProducerRecord<>(
                      topic + ".copy", r.partition(), r.key(), r.value(), r.headers())));
        }
        for (Future<?> f : acks) {
          f.get();
        }
        consumer.commitSync();
        seen += batch.count();
      }
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
    return seen / ((System.nanoTime() - started) / 1e9);
  }

  private static void produce(KafkaBroker kafka, String topic, int records) {
    try (KafkaProducer<byte[], byte[]> producer =
        new KafkaProducer<>(
            kafka.producerConfig(), new ByteArraySerializer(), new ByteArraySerializer())) {
      for (int i = 0; i < records; i++) {
        producer.send(
            new ProducerRecord<>(
                topic, ("k" + (i % 100)).getBytes(), ("{\"amount\":" + i + "}").getBytes()));
      }
      producer.flush();
    }
  }
}
