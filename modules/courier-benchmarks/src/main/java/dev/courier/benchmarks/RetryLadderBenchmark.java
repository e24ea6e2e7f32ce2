package dev.courier.benchmarks;

import dev.courier.core.CourierHeaders;
import dev.courier.retry.RecordHandler;
import dev.courier.retry.RetryConfig;
import dev.courier.retry.RetryingConsumer;
import dev.courier.testkit.CourierInfra;
import dev.courier.testkit.InfraSettings;
import dev.courier.testkit.KafkaBroker;
import dev.courier.testkit.UniqueNames;
import io.opentelemetry.api.OpenTelemetry;
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
import java.util.concurrent.locks.LockSupport;
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
 * fixed delay. Figures: records/s through the tier (first to last tier execution) and through the
 * main pass (first to last failing call: consume, call, forward with the failure's headers, commit,
 * the raw loop's work and more), and hop lateness (execution minus due time) in runs of their own
 * with records produced at a steady rate. A throughput run forwards its records for longer than the
 * delay, so the tier then drains a backlog of due records (consume, call, commit: no produce), and
 * their lateness is that queue; it is reported beside. Targets, in every round: tier and main pass
 * at least 0.9x the raw loop, p99 lateness at most 25 ms at the steady rate, never early.
 *
 * <p>Run: {@code java -cp modules/courier-benchmarks/target/benchmarks.jar
 * dev.courier.benchmarks.RetryLadderBenchmark [records] [rounds] [hops/s] [seconds]}
 */
public final class RetryLadderBenchmark {

  private static final long DELAY_MS = 500;

  /** Records per second offered in the lateness runs: a tenth of the tier's burst rate. */
  private static final int PACED_RATE = 2_000;

  private static final String RAW = "raw consume-produce-commit loop";
  private static final String TIER = "courier retry tier (records/s through tier 1)";

  private RetryLadderBenchmark() {}

  public static void main(String[] args) throws Exception {
    int records = args.length > 0 ? Integer.parseInt(args[0]) : 20_000;
    int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 5;
    int pacedRate = args.length > 2 ? Integer.parseInt(args[2]) : PACED_RATE;
    Duration pacedFor = Duration.ofSeconds(args.length > 3 ? Long.parseLong(args[3]) : 10);
    List<Double> burstP99s = new ArrayList<>();
    List<Double> mainPasses = new ArrayList<>();
    Map<String, Measurement> m;
    List<Duration> paced = new ArrayList<>();
    List<Double> pacedP99s = new ArrayList<>();
    List<Double> earliest = new ArrayList<>();
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
                    List<Double> main = new ArrayList<>();
                    double rate =
                        ladder(kafka, freshTopic(kafka, records), records, late, null, main);
                    if (!warmUp) {
                      mainPasses.addAll(main);
                      List<Duration> sorted = new ArrayList<>(late);
                      Collections.sort(sorted);
                      burstP99s.add(millis(percentile(sorted, 0.99)));
                    }
                    return rate;
                  })
              .run();
      // Lateness at a steady load well within the tier's capacity: what a hop's timing is, apart
      // from the queueing a burst of due records makes (the burst's own p99 is reported above).
      int pacedRecords = (int) (pacedRate * pacedFor.toSeconds());
      for (int run = rounds > 1 ? 0 : 1; run <= rounds; run++) {
        List<Duration> late = Collections.synchronizedList(new ArrayList<>());
        String topic = freshTopic(kafka, 0);
        ladder(
            kafka,
            topic,
            pacedRecords,
            late,
            () -> produce(kafka, topic, pacedRecords, pacedRate),
            null);
        if (run > 0) {
          List<Duration> sorted = new ArrayList<>(late);
          Collections.sort(sorted);
          pacedP99s.add(millis(percentile(sorted, 0.99)));
          earliest.add(millis(sorted.get(0)));
          paced.addAll(sorted);
        }
      }
    }
    Collections.sort(paced);
    List<Check> checks =
        List.of(
            new Check(m.get(TIER).over("tier / raw loop", m.get(RAW)), "x", Target.atLeast(0.9)),
            // The same work as the raw loop (consume, produce, commit), plus the handler's call and
            // the failure's headers.
            new Check(
                new Measurement("main pass, records/s forwarded to tier 1", mainPasses)
                    .over("main pass / raw loop", m.get(RAW)),
                "x",
                Target.atLeast(0.9)),
            new Check(
                new Measurement("hop lateness p99 at " + pacedRate + " hops/s", pacedP99s),
                " ms",
                Target.atMost(25)),
            new Check(
                new Measurement("hop lateness min (never early)", earliest),
                " ms",
                Target.atLeast(0)),
            Check.reported(
                new Measurement(
                    "hop lateness p99 in the throughput runs (" + records + " due at once)",
                    burstP99s),
                " ms"));
    List<String> notes =
        List.of(
            String.format(
                Locale.ROOT,
                "throughput: %d records per run, each failing once, fixed delay %d ms; %d"
                    + " alternated rounds %s",
                records,
                DELAY_MS,
                rounds,
                Rounds.warmUp(rounds)),
            String.format(
                Locale.ROOT,
                "lateness: %d runs of %d s, records produced at %d/s, each failing once and"
                    + " executed from tier 1 %d ms later; all %d hops: min %.1f ms, p50 %.1f ms,"
                    + " p99 %.1f ms, max %.1f ms",
                rounds,
                pacedFor.toSeconds(),
                pacedRate,
                DELAY_MS,
                paced.size(),
                millis(paced.get(0)),
                millis(percentile(paced, 0.5)),
                millis(percentile(paced, 0.99)),
                millis(paced.get(paced.size() - 1))));
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
    if (records > 0) {
      produce(kafka, topic, records, 0);
    }
    return topic;
  }

  private static Duration percentile(List<Duration> sorted, double q) {
    return sorted.get(Math.min(sorted.size() - 1, (int) Math.ceil(sorted.size() * q) - 1));
  }

  private static double millis(Duration d) {
    return d.toNanos() / 1e6;
  }

  /**
   * Runs a retrying consumer until every record passed tier 1; {@code load}, when given, produces
   * the records meanwhile. {@code mainPass}, when given, gets the rate the main pass failed them
   * over to tier 1 (first to last failing call): the tier cannot run records faster than they fall
   * due, and they fall due as fast as the main pass forwards them.
   */
  private static double ladder(
      KafkaBroker kafka,
      String topic,
      int records,
      List<Duration> lateness,
      Runnable load,
      List<Double> mainPass)
      throws Exception {
    return ladder(kafka, topic, records, lateness, load, mainPass, null);
  }

  /** As the other, tracing the ladder with {@code openTelemetry} when given. */
  static double ladder(
      KafkaBroker kafka,
      String topic,
      int records,
      List<Duration> lateness,
      Runnable load,
      List<Double> mainPass,
      OpenTelemetry openTelemetry)
      throws Exception {
    Map<String, Object> settings =
        ladderSettings(kafka, UniqueNames.group("bench-ladder"), topic, records, DELAY_MS);
    Map<Long, Boolean> failedOnce = new ConcurrentHashMap<>();
    AtomicLong firstTier = new AtomicLong();
    AtomicLong lastTier = new AtomicLong();
    AtomicLong tierCalls = new AtomicLong();
    AtomicLong firstFailure = new AtomicLong();
    AtomicLong lastFailure = new AtomicLong();
    RecordHandler<byte[], byte[]> handler =
        (ConsumerRecord<byte[], byte[]> r) -> {
          if (failedOnce.putIfAbsent(r.offset(), Boolean.TRUE) == null) {
            long now = System.nanoTime();
            firstFailure.compareAndSet(0, now);
            lastFailure.set(now);
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
    RetryingConsumer.Builder<byte[], byte[]> built =
        RetryingConsumer.builder(settings, new ByteArrayDeserializer(), new ByteArrayDeserializer())
            .handler(handler);
    if (openTelemetry != null) {
      built.openTelemetry(openTelemetry);
    }
    try (RetryingConsumer<byte[], byte[]> consumer = built.build()) {
      Future<?> loop = thread.submit(() -> consumer.runUntil(p -> p.succeeded() >= records));
      if (load != null) {
        load.run();
      }
      loop.get(10, TimeUnit.MINUTES);
    } finally {
      thread.shutdown();
    }
    if (mainPass != null) {
      double failing = (lastFailure.get() - firstFailure.get()) / 1e9;
      mainPass.add(records / Math.max(failing, 1e-3));
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

  /**
   * Produces the records at full speed ({@code perSecond} 0) or paced: a hundredth of the rate
   * every 10 ms, parked in between (a spinning generator takes a core from what it measures).
   */
  private static void produce(KafkaBroker kafka, String topic, int records, int perSecond) {
    produce(kafka, topic, records, perSecond, null);
  }

  /** As the other, each record carrying {@code traceparent} when given. */
  static void produce(
      KafkaBroker kafka, String topic, int records, int perSecond, byte[] traceparent) {
    int perTick = perSecond == 0 ? records : Math.max(1, perSecond / 100);
    try (KafkaProducer<byte[], byte[]> producer =
        new KafkaProducer<>(
            kafka.producerConfig(), new ByteArraySerializer(), new ByteArraySerializer())) {
      long start = System.nanoTime();
      for (int i = 0, tick = 0; i < records; tick++) {
        long due = start + tick * 10_000_000L;
        for (long left = due - System.nanoTime(); perSecond > 0 && left > 0; ) {
          LockSupport.parkNanos(left);
          left = due - System.nanoTime();
        }
        for (int n = 0; n < perTick && i < records; n++, i++) {
          ProducerRecord<byte[], byte[]> r =
              new ProducerRecord<>(
                  topic, ("k" + (i % 100)).getBytes(), ("{\"amount\":" + i + "}").getBytes());
          if (traceparent != null) {
            r.headers().add(CourierHeaders.TRACEPARENT, traceparent);
          }
          producer.send(r);
        }
      }
      producer.flush();
    }
  }

  /**
   * A two-attempt ladder with a fixed delay, a budget that never refuses and 500 records a poll:
   * what the retry benchmarks share.
   */
  static Map<String, Object> ladderSettings(
      KafkaBroker kafka, String group, String topic, int records, long delayMs) {
    Map<String, Object> settings = new HashMap<>();
    settings.put(RetryConfig.BOOTSTRAP_SERVERS, kafka.bootstrapServers());
    settings.put(RetryConfig.GROUP_ID, group);
    settings.put(RetryConfig.TOPIC, topic);
    settings.put(RetryConfig.MAX_ATTEMPTS, 2);
    settings.put(RetryConfig.BACKOFF_TYPE, "fixed");
    settings.put(RetryConfig.BACKOFF_INITIAL_MS, delayMs);
    settings.put(RetryConfig.BACKOFF_MAX_MS, delayMs);
    settings.put(RetryConfig.BUDGET_CAPACITY, records);
    settings.put(RetryConfig.BUDGET_REFILL_PER_SECOND, 1_000_000.0);
    settings.put("kafka." + ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 500);
    return settings;
  }
}
