package dev.courier.benchmarks;

import dev.courier.retry.RecordHandler;
import dev.courier.retry.RetryingConsumer;
import dev.courier.testkit.CourierInfra;
import dev.courier.testkit.InfraSettings;
import dev.courier.testkit.KafkaBroker;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.sql.SQLTransientConnectionException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * Where key order's time goes in {@link OrderedRetryBenchmark}'s run: the same records and
 * failures, and for the key with the most failing records (its retries are serial, each behind the
 * one before) every call's time since the run's first call, and each hop's time from a failed call
 * to its retry's call. A run lasts at least that key's hops one after another. And the whole run's
 * calls per 100 ms (first calls, retries, the highest offset called so far): where the main pass
 * ends and how long the retries after it last.
 *
 * <p>Run: {@code java -cp modules/courier-benchmarks/target/benchmarks.jar
 * dev.courier.benchmarks.OrderedRetryHops [percent] [ordering] [rounds]}; {@code
 * -Dbench.retry.<setting>=<value>} sets a ladder setting as in {@link OrderedRetryBenchmark}.
 */
public final class OrderedRetryHops {

  private static final int RECORDS = 100_000;
  private static final int KEYS = OrderedRetryBenchmark.KEYS;

  /** 100 ms buckets of the run's timeline: a minute. */
  private static final int BUCKETS = 600;

  private OrderedRetryHops() {}

  public static void main(String[] args) throws Exception {
    int percent = args.length > 0 ? Integer.parseInt(args[0]) : 10;
    String ordering = args.length > 1 ? args[1] : "key";
    int rounds = args.length > 2 ? Integer.parseInt(args[2]) : 3;
    int probe = keyWithMostFailures(percent);
    try (CourierInfra infra = CourierInfra.start(InfraSettings.fromEnvironment())) {
      for (int round = 1; round <= rounds; round++) {
        List<String> calls = run(infra.kafka(), percent, ordering, probe, round);
        // The first rounds warm the JIT up; the last one's calls are printed.
        if (round == rounds) {
          calls.forEach(System.out::println);
        }
      }
    }
  }

  private static int keyWithMostFailures(int percent) {
    int best = 0;
    int most = -1;
    for (int k = 0; k < KEYS; k++) {
      int failing = 0;
      for (long offset = k; offset < RECORDS; offset += KEYS) {
        failing += OrderedRetryBenchmark.fails(offset, percent) ? 1 : 0;
      }
      if (failing > most) {
        most = failing;
        best = k;
      }
    }
    return best;
  }

  private static List<String> run(
      KafkaBroker kafka, int percent, String ordering, int probe, int round) throws Exception {
    Map<String, Object> settings =
        OrderedRetryBenchmark.ladderOnRecords(kafka, "hops", RECORDS, ordering);
    byte[] probeKey = ("k" + probe).getBytes(StandardCharsets.UTF_8);
    Map<Long, Boolean> failedOnce = new ConcurrentHashMap<>();
    AtomicLong first = new AtomicLong();
    AtomicLong lastDone = new AtomicLong();
    List<String> calls = Collections.synchronizedList(new ArrayList<>());
    Map<Long, Long> failedAt = new ConcurrentHashMap<>();
    AtomicLongArray firstCalls = new AtomicLongArray(BUCKETS);
    AtomicLongArray retries = new AtomicLongArray(BUCKETS);
    AtomicLongArray highest = new AtomicLongArray(BUCKETS);
    java.util.Set<Long> called = ConcurrentHashMap.newKeySet();
    RecordHandler<byte[], byte[]> handler =
        (ConsumerRecord<byte[], byte[]> r) -> {
          long now = System.nanoTime();
          first.compareAndSet(0, now);
          boolean fail =
              OrderedRetryBenchmark.fails(r.offset(), percent)
                  && failedOnce.putIfAbsent(r.offset(), true) == null;
          int bucket = (int) Math.min(BUCKETS - 1, (now - first.get()) / 100_000_000L);
          long offset = r.offset(); // a retry is handed over with its original coordinates
          if (called.add(offset)) {
            firstCalls.incrementAndGet(bucket);
            highest.accumulateAndGet(bucket, offset, Math::max);
          } else {
            retries.incrementAndGet(bucket);
          }
          if (java.util.Arrays.equals(r.key(), probeKey)) {
            double at = (now - first.get()) / 1e6;
            String hop = "";
            Long failed = failedAt.get(r.offset());
            if (fail) {
              failedAt.put(r.offset(), now);
            } else if (failed != null) {
              hop = String.format(Locale.ROOT, "  hop %.1f ms", (now - failed) / 1e6);
            }
            calls.add(
                String.format(
                    Locale.ROOT,
                    "%8.1f ms  offset %6d  %s%s",
                    at,
                    r.offset(),
                    fail ? "failed" : "done",
                    hop));
          }
          if (fail) {
            throw new SQLTransientConnectionException("fails once");
          }
          lastDone.set(System.nanoTime());
        };
    ExecutorService thread = Executors.newSingleThreadExecutor();
    AtomicLong doneAt = new AtomicLong();
    try (RetryingConsumer<byte[], byte[]> consumer =
        RetryingConsumer.builder(settings, new ByteArrayDeserializer(), new ByteArrayDeserializer())
            .handler(handler)
            .meterRegistry(new SimpleMeterRegistry())
            .build()) {
      thread
          .submit(() -> consumer.runUntil(p -> OrderedRetryBenchmark.doneAt(doneAt, p, RECORDS)))
          .get(10, TimeUnit.MINUTES);
    } finally {
      thread.shutdown();
    }
    long closed = System.nanoTime();
    long done = lastDone.get();
    System.out.printf(
        Locale.ROOT,
        "round %d, %s, %d%% failing once: %.0f ms from the first call to the last record done"
            + " (its successful call); counted done %.0f ms later, closed %.0f ms after that; key"
            + " k%d has the most failing records%n",
        round,
        ordering,
        percent,
        (done - first.get()) / 1e6,
        (doneAt.get() - done) / 1e6,
        (closed - doneAt.get()) / 1e6,
        probe);
    long buckets = (done - first.get()) / 100_000_000L;
    for (int b = 0; b <= Math.min(buckets, BUCKETS - 1); b++) {
      calls.add(
          String.format(
              Locale.ROOT,
              "%5d-%5d ms: first calls %6d, retries %5d, highest offset called %6d",
              b * 100,
              b * 100 + 100,
              firstCalls.get(b),
              retries.get(b),
              highest.get(b)));
    }
    return calls;
  }
}
