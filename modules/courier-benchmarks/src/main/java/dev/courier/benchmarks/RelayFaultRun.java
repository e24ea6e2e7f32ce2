package dev.courier.benchmarks;

import dev.courier.cli.Courier;
import dev.courier.outbox.OutboxEvent;
import dev.courier.outbox.OutboxRelayConfig;
import dev.courier.outbox.OutboxWriter;
import dev.courier.testkit.JvmWorker;
import dev.courier.testkit.KafkaProcess;
import dev.courier.testkit.PostgresProcess;
import dev.courier.testkit.SettingsFile;
import dev.courier.testkit.UniqueNames;
import dev.courier.testkit.WorkerProcess;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * A seeded, randomized fault run for the outbox relay as deployed: {@code courier relay} in its own
 * JVM, PostgreSQL and a broker in theirs, a writer committing events for 20 keys at a steady rate,
 * and a consumer reading them. Meanwhile the relay is SIGKILLed and SIGTERMed and started again,
 * the broker is killed and restarted, and PostgreSQL crashes and recovers, at moments the seed
 * picks. It reports events committed, delivered, lost (must be 0), duplicates, per-key order
 * violations (must be 0: the first copy of each event arrives in commit order per key) and recovery
 * times, and fails if anything was lost or reordered.
 *
 * <p>Run: {@code java -cp modules/courier-benchmarks/target/benchmarks.jar
 * dev.courier.benchmarks.RelayFaultRun [seed] [seconds of writing] [events/s]}
 */
public final class RelayFaultRun {

  private static final int KEYS = 20;

  private final long seed;
  private final int seconds;
  private final int perSecond;
  private final Random random;
  private final List<String> events = new ArrayList<>();
  private final Map<String, Long> committedAt = new ConcurrentHashMap<>();
  private final Map<String, List<Long>> deliveredSeq = new ConcurrentHashMap<>();
  private final AtomicLong delivered = new AtomicLong();

  /** Events committed after this instant count as new for a recovery measurement. */
  private volatile long watchFrom = Long.MAX_VALUE;

  /** When the first new event arrived, or 0. */
  private final AtomicLong firstNew = new AtomicLong();

  private final List<Double> relayRecoveries = new ArrayList<>();
  private final List<Double> brokerRecoveries = new ArrayList<>();
  private final List<Double> postgresRecoveries = new ArrayList<>();
  private long t0;

  private RelayFaultRun(long seed, int seconds, int perSecond) {
    this.seed = seed;
    this.seconds = seconds;
    this.perSecond = perSecond;
    this.random = new Random(seed);
  }

  public static void main(String[] args) throws Exception {
    long seed = args.length > 0 ? Long.parseLong(args[0]) : 1;
    int seconds = args.length > 1 ? Integer.parseInt(args[1]) : 90;
    int perSecond = args.length > 2 ? Integer.parseInt(args[2]) : 200;
    new RelayFaultRun(seed, seconds, perSecond).run();
  }

  private void run() throws Exception {
    List<String> notes = new ArrayList<>();
    try (PostgresProcess pg = PostgresProcess.builder().build().start();
        KafkaProcess kafka = KafkaProcess.plaintext().start()) {
      String prefix = UniqueNames.topic("faults").replace('-', '_');
      Map<String, String> settings = new LinkedHashMap<>();
      settings.putAll(
          OutboxRelayConfig.settings(
              kafka.bootstrapServers(), pg.jdbcUrl("postgres"), "postgres", "postgres", prefix));
      settings.put("relay.http.port", "0");
      settings.put(OutboxRelayConfig.STARTUP_BACKOFF_MAX_MS, "1000");
      settings.put(OutboxRelayConfig.DELIVERY_TIMEOUT_MS, "10000");
      Path config = SettingsFile.write(settings);
      String topic = prefix + ".account";
      kafka.createTopic(topic, 4);
      AtomicBoolean stop = new AtomicBoolean();
      ExecutorService threads = Executors.newFixedThreadPool(2);
      WorkerProcess relay = startRelay(config);
      t0 = System.nanoTime();
      try {
        // Rows committed before the slot exists are not captured: write once the relay streams.
        awaitSlot(pg, settings.get(OutboxRelayConfig.SLOT_NAME));
        threads.submit(() -> consume(kafka, topic, stop));
        var writing = threads.submit(() -> write(pg, stop));
        long end = System.nanoTime() + Duration.ofSeconds(seconds).toNanos();
        while (System.nanoTime() < end) {
          // The next fault comes 3 to 8 s later; the schedule is the point of a fault run.
          LockSupport.parkNanos(Duration.ofMillis(3_000 + random.nextInt(5_000)).toNanos());
          relay = fault(relay, config, pg, kafka);
        }
        stop.set(true);
        writing.get();
        long deadline = System.nanoTime() + Duration.ofMinutes(3).toNanos();
        while (!allDelivered() && System.nanoTime() < deadline) {
          LockSupport.parkNanos(Duration.ofMillis(200).toNanos()); // polling for the drain
        }
      } finally {
        stop.set(true);
        relay.terminate(Duration.ofSeconds(60));
        threads.shutdownNow();
      }
    }
    Set<String> seen = new HashSet<>();
    long lost = 0;
    for (String id : committedAt.keySet()) {
      String[] parts = id.split(":");
      List<Long> got = deliveredSeq.getOrDefault(parts[0], List.of());
      if (!got.contains(Long.parseLong(parts[1]))) {
        lost++;
      }
    }
    long violations = 0;
    long distinct = 0;
    for (var e : deliveredSeq.entrySet()) {
      long highest = -1;
      for (long seq : e.getValue()) {
        if (seen.add(e.getKey() + ":" + seq)) {
          distinct++;
          if (seq < highest) {
            violations++;
          }
          highest = Math.max(highest, seq);
        }
      }
    }
    notes.add(
        String.format(
            Locale.ROOT,
            "seed %d, %d s of writing at %d events/s: committed %d, delivered %d (distinct %d),"
                + " lost %d (target 0), duplicates %d, per-key order violations %d (target 0)",
            seed,
            seconds,
            perSecond,
            committedAt.size(),
            delivered.get(),
            distinct,
            lost,
            delivered.get() - distinct,
            violations));
    notes.add(
        "recovery, from the start or return to the first new event delivered: relay restarts "
            + summary(relayRecoveries)
            + " (target: within 5 s of a start); broker restarts "
            + summary(brokerRecoveries)
            + "; PostgreSQL restarts "
            + summary(postgresRecoveries));
    notes.add("faults: " + String.join("; ", events));
    BenchmarkReport.write(
        Path.of("target", "benchmarks"), "relay-faults", "events", List.of(), List.of(), notes);
    if (lost > 0 || violations > 0) {
      throw new IllegalStateException(
          "relay fault run with seed "
              + seed
              + ": "
              + lost
              + " lost, "
              + violations
              + " reordered");
    }
  }

  private WorkerProcess fault(
      WorkerProcess relay, Path config, PostgresProcess pg, KafkaProcess kafka) {
    switch (random.nextInt(5)) {
      case 0, 1 -> {
        relay.kill();
        event("SIGKILL relay");
        WorkerProcess next = startRelay(config);
        relayRecoveries.add(untilNextDelivery());
        return next;
      }
      case 2 -> {
        relay.terminate(Duration.ofSeconds(60));
        event("SIGTERM relay");
        WorkerProcess next = startRelay(config);
        relayRecoveries.add(untilNextDelivery());
        return next;
      }
      case 3 -> {
        kafka.kill();
        event("SIGKILL broker");
        LockSupport.parkNanos(Duration.ofMillis(1_000 + random.nextInt(3_000)).toNanos());
        kafka.start();
        event("broker back");
        brokerRecoveries.add(untilNextDelivery());
        return relay;
      }
      default -> {
        pg.crash();
        event("PostgreSQL crash");
        LockSupport.parkNanos(Duration.ofMillis(500 + random.nextInt(2_000)).toNanos());
        pg.start();
        event("PostgreSQL back");
        postgresRecoveries.add(untilNextDelivery());
        return relay;
      }
    }
  }

  /** Seconds until the first event committed from now on is delivered. */
  private double untilNextDelivery() {
    long from = System.nanoTime();
    firstNew.set(0);
    watchFrom = from;
    long deadline = from + Duration.ofMinutes(2).toNanos();
    while (firstNew.get() == 0 && System.nanoTime() < deadline) {
      LockSupport.parkNanos(Duration.ofMillis(20).toNanos()); // polling for the first delivery
    }
    watchFrom = Long.MAX_VALUE;
    return firstNew.get() == 0 ? Double.NaN : (firstNew.get() - from) / 1e9;
  }

  private static void awaitSlot(PostgresProcess pg, String slot) throws SQLException {
    long deadline = System.nanoTime() + Duration.ofMinutes(2).toNanos();
    while (System.nanoTime() < deadline) {
      try (Connection c = pg.dataSource("postgres").getConnection();
          var ps =
              c.prepareStatement("SELECT active FROM pg_replication_slots WHERE slot_name = ?")) {
        ps.setString(1, slot);
        try (var rs = ps.executeQuery()) {
          if (rs.next() && rs.getBoolean(1)) {
            return;
          }
        }
      }
      LockSupport.parkNanos(Duration.ofMillis(100).toNanos()); // polling for the slot
    }
    throw new IllegalStateException("the relay never created slot " + slot);
  }

  private boolean allDelivered() {
    for (String id : committedAt.keySet()) {
      String[] parts = id.split(":");
      if (!deliveredSeq.getOrDefault(parts[0], List.of()).contains(Long.parseLong(parts[1]))) {
        return false;
      }
    }
    return true;
  }

  private WorkerProcess startRelay(Path config) {
    return JvmWorker.of(Courier.class)
        .name("relay")
        .args("relay", "--config", config.toString())
        .start();
  }

  private void event(String what) {
    events.add(String.format(Locale.ROOT, "%.1fs %s", (System.nanoTime() - t0) / 1e9, what));
  }

  /** Commits events at a steady rate; a commit that fails is not counted as committed. */
  private void write(PostgresProcess pg, AtomicBoolean stop) {
    long[] seq = new long[KEYS];
    long interval = Duration.ofSeconds(1).toNanos() / perSecond;
    long next = System.nanoTime();
    OutboxWriter writer = OutboxWriter.create();
    Connection c = null;
    while (!stop.get()) {
      int key = random.nextInt(KEYS);
      long n = seq[key]++;
      try {
        if (c == null) {
          c = pg.dataSource("postgres").getConnection();
          c.setAutoCommit(false);
        }
        writer.write(
            c,
            OutboxEvent.builder()
                .aggregate("account", "k" + key)
                .eventType("E")
                .json("{\"key\":\"k" + key + "\",\"seq\":" + n + "}")
                .build());
        c.commit();
        committedAt.put("k" + key + ":" + n, System.nanoTime());
      } catch (SQLException e) {
        close(c);
        c = null; // PostgreSQL went away; the event may or may not be committed
      }
      next += interval;
      long wait = next - System.nanoTime();
      if (wait > 0) {
        LockSupport.parkNanos(wait); // a steady commit rate is the point
      } else if (c == null) {
        LockSupport.parkNanos(Duration.ofMillis(100).toNanos()); // reconnecting
        next = System.nanoTime();
      }
    }
    close(c);
  }

  private static void close(Connection c) {
    if (c != null) {
      try {
        c.close();
      } catch (SQLException e) {
        // gone with the server
      }
    }
  }

  private void consume(KafkaProcess kafka, String topic, AtomicBoolean stop) {
    Map<String, Object> config = new HashMap<>(kafka.clientSettings("", ""));
    config.put(ConsumerConfig.GROUP_ID_CONFIG, UniqueNames.group("faults"));
    config.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    try (KafkaConsumer<String, String> consumer =
        new KafkaConsumer<>(config, new StringDeserializer(), new StringDeserializer())) {
      consumer.subscribe(List.of(topic));
      while (!Thread.currentThread().isInterrupted()) {
        for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(100))) {
          String v = r.value();
          String key = v.substring(v.indexOf(":\"") + 2, v.indexOf("\","));
          long seq = Long.parseLong(v.substring(v.lastIndexOf(':') + 1, v.length() - 1));
          deliveredSeq
              .computeIfAbsent(key, k -> Collections.synchronizedList(new ArrayList<>()))
              .add(seq);
          delivered.incrementAndGet();
          Long committed = committedAt.get(key + ":" + seq);
          if (committed != null && committed > watchFrom) {
            firstNew.compareAndSet(0, System.nanoTime());
          }
        }
      }
    } catch (org.apache.kafka.common.errors.InterruptException e) {
      // the run is over
    }
  }

  private static String summary(List<Double> seconds) {
    if (seconds.isEmpty()) {
      return "none";
    }
    List<Double> sorted = new ArrayList<>(seconds);
    Collections.sort(sorted);
    return String.format(
        Locale.ROOT,
        "n=%d median %.1f s max %.1f s",
        sorted.size(),
        sorted.get(sorted.size() / 2),
        sorted.get(sorted.size() - 1));
  }
}
