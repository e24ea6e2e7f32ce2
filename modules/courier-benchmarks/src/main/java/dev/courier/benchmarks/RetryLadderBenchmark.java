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
 * The retry ladder against a raw consume-produce-commit loop on the same records, alternated round
 * by round ({@link Rounds}): every record fails once (transient) and passes through tier 1 with a
 * fixed delay. Figures: records/s through the tier (first to last tier execution) and hop lateness
 * (execution minus due time). Targets, in every round: never early, p99 lateness at most 25 ms, at
 * least 0.9x the raw loop.
 *
 * <p>Run: {@code java -cp modules/courier-benchmarks/target/benchmarks.jar
 * dev.courier.benchmarks.RetryLadderBenchmark [records] [rounds]}
 */
public final class RetryLadderBenchmark {

  private static final long DELAY_MS = 500;
  private static final String RAW = "raw consume-produce-commit loop";
  private static final String TIER = "courier retry tier (records/s through tier 1)";

  private RetryLadderBenchmark() {}

  public static void main(String[] args) throws Exception {
    int records = args.length > 0 ? Integer.parseInt(args[0]) : 5_000;
    int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 5;
    List<Double> p99s = new ArrayList<>();
    List<Double> earliest = new ArrayList<>();
    List<Duration> all = new ArrayList<>();
    Map<String, Measurement> m;
    try (CourierInfra infra = CourierInfra.start(InfraSettings.fromEnvironment())) {
      KafkaBroker kafka = infra.kafka();
      m =
          Rounds.of(rounds)
              .variant(RAW, warmUp -> rawLoop(kafka, freshTopic(kafka, records), records))
              .variant(
                  TIER,
                  warmUp -> {
                    // Added to on the handler thread: a copy-on-write list copied itself on every
                    // hop.
                    List<Duration> late = Collections.synchronizedList(new ArrayList<>());
                    double rate = ladder(kafka, freshTopic(kafka, records), records, late);
                    if (!warmUp) {
                      List<Duration> sorted = new ArrayList<>(late);
                      Collections.sort(sorted);
                      p99s.add(millis(percentile(sorted, 0.99)));
                      earliest.add(millis(sorted.get(0)));
                      all.addAll(sorted);
                    }
                    return rate;
                  })
              .run();
    }
    Collections.sort(all);
    List<Check> checks =
        List.of(
            new Check(m.get(TIER).over("tier / raw loop", m.get(RAW)), "x", Target.atLeast(0.9)),
            new Check(new Measurement("hop lateness p99", p99s), " ms", Target.atMost(25)),
            new Check(
                new Measurement("hop lateness min (never early)", earliest),
                " ms",
                Target.atLeast(0)));
    List<String> notes =
        List.of(
            String.format(
                Locale.ROOT,
                "%d records per run, each failing once, fixed delay %d ms; %d alternated rounds"
                    + " %s",
                records,
                DELAY_MS,
                rounds,
                Rounds.warmUp(rounds)),
            String.format(
                Locale.ROOT,
                "all %d measured hops: min %.1f ms, p50 %.1f ms, p99 %.1f ms, max %.1f ms",
                all.size(),
                millis(all.get(0)),
                millis(percentile(all, 0.5)),
                millis(percentile(all, 0.99)),
                millis(all.get(all.size() - 1))));
    BenchmarkReport.write(
        Path.of("target", "benchmarks"),
        "retry",
        "records/s",
        new ArrayList<>(m.values()),
        checks,
        notes);
  }

  private static String freshTopic(KafkaBroker kafka, int records) {
    String topic = UniqueNames.topic("bench-ladder");
    kafka.createTopic(topic, 1);
    kafka.createTopic(topic + ".copy", 1);
    produce(kafka, topic, records);
    return topic;
  }

  private static Duration percentile(List<Duration> sorted, double q) {
    return sorted.get(Math.min(sorted.size() - 1, (int) Math.ceil(sorted.size() * q) - 1));
  }

  private static double millis(Duration d) {
    return d.toNanos() / 1e6;
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
