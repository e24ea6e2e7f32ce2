package dev.courier.benchmarks;

import dev.courier.cli.Courier;
import dev.courier.outbox.OutboxRelayConfig;
import dev.courier.outbox.OutboxSchema;
import dev.courier.outbox.OutboxShards;
import dev.courier.testkit.JvmWorker;
import dev.courier.testkit.KafkaProcess;
import dev.courier.testkit.PostgresProcess;
import dev.courier.testkit.UniqueNames;
import dev.courier.testkit.WorkerProcess;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * The outbox as it is deployed, each part a process of its own on this machine: PostgreSQL with
 * fsync on, a standalone broker, the relay from the packaged {@code courier.jar}, a writer JVM and
 * this harness reading the topic. Two figures:
 *
 * <ul>
 *   <li><b>keep-up</b>: the writer commits at a fixed rate, 10 s to warm the relay, then 60 s
 *       measured; a rate is kept up with when no event of the measured window reached the topic
 *       more than 1 s after its commit. Rates rise until one is not kept up with.
 *   <li><b>catch-up</b>: with the relay stopped, a backlog is committed at full speed; then a new
 *       relay process starts: the time from its start to the first event, and the rate it drains
 *       the backlog at.
 * </ul>
 *
 * <p>Run (after {@code mvn -B -q package -DskipTests -pl
 * modules/courier-cli,modules/courier-benchmarks -am}): {@code java -cp
 * modules/courier-benchmarks/target/benchmarks.jar dev.courier.benchmarks.OutboxProductionRun
 * [rates,..] [seconds] [backlog] [partitions]}; {@code -Dbench.courier.jar} names another jar,
 * {@code -Dbench.relay.<key>=<value>} sets the relay.
 */
public final class OutboxProductionRun {

  private static final Duration WARM = Duration.ofSeconds(10);
  private static final long KEEP_UP_MS = 1_000;

  private OutboxProductionRun() {}

  public static void main(String[] args) throws Exception {
    int[] rates =
        java.util.Arrays.stream((args.length > 0 ? args[0] : "2000,3000,4000,5000,6000").split(","))
            .mapToInt(Integer::parseInt)
            .toArray();
    Duration window = Duration.ofSeconds(args.length > 1 ? Long.parseLong(args[1]) : 60);
    int backlog = args.length > 2 ? Integer.parseInt(args[2]) : 100_000;
    int partitions = args.length > 3 ? Integer.parseInt(args[3]) : 3;
    OutboxShards shards = OutboxShards.of(args.length > 4 ? Integer.parseInt(args[4]) : 1);
    Path jar =
        Path.of(System.getProperty("bench.courier.jar", "modules/courier-cli/target/courier.jar"));
    if (!Files.exists(jar)) {
      throw new IllegalStateException(
          jar.toAbsolutePath()
              + " is missing: mvn -B -q package -DskipTests -pl modules/courier-cli -am");
    }
    List<Measurement> rows = new ArrayList<>();
    List<Check> checks = new ArrayList<>();
    List<String> notes = new ArrayList<>();
    try (KafkaProcess kafka = KafkaProcess.plaintext().start();
        PostgresProcess pg =
            PostgresProcess.builder()
                .setting("fsync", "on")
                .setting("full_page_writes", "on")
                .build()
                .start()) {
      OutboxSchema.migrate(pg.dataSource("postgres"), shards);
      Map<String, String> settings = relaySettings(kafka, pg);
      settings.put(OutboxRelayConfig.SHARD_COUNT, String.valueOf(shards.count()));
      String topic = settings.get(OutboxRelayConfig.TOPIC_PREFIX) + ".account";
      kafka.createTopic(topic, partitions);
      try (Tracker tracker = new Tracker(kafka, topic)) {
        int keptUp = 0;
        try (Relays relays = Relays.start(jar, settings, shards)) {
          for (int rate : rates) {
            KeepUp result = keepUp(pg, shards, tracker, rate, window);
            notes.add(result.describe());
            rows.add(
                new Measurement(
                    rate + "/s offered: delivered events/s", List.of(result.delivered)));
            rows.add(
                new Measurement(
                    rate + "/s offered: worst delay (ms)", List.of((double) result.worstMs)));
            if (!result.keptUp()) {
              break;
            }
            keptUp = rate;
          }
        }
        checks.add(
            new Check(
                new Measurement(
                    "keep-up: highest rate with every event within 1 s", List.of((double) keptUp)),
                "/s",
                Target.atLeast(3000)));
        CatchUp catchUp = catchUp(jar, settings, shards, pg, tracker, backlog);
        notes.add(catchUp.describe());
        checks.add(
            new Check(
                new Measurement(
                    "catch-up: drain rate of a " + backlog + "-event backlog",
                    List.of(catchUp.drainPerSecond)),
                "/s",
                Target.atLeast(10_000)));
        checks.add(
            new Check(
                new Measurement(
                    "catch-up: relay start to first event", List.of(catchUp.firstEventSeconds)),
                " s",
                Target.atMost(5)));
      }
      notes.add(
          String.format(
              Locale.ROOT,
              "PostgreSQL process (fsync on), standalone broker, %d relay(s) (one per outbox shard)"
                  + " from %s, each in its own JVM, writer in another; topic with %d partitions; %d"
                  + " s warm-up and %d s measured per rate",
              shards.count(),
              jar.getFileName(),
              partitions,
              WARM.toSeconds(),
              window.toSeconds()));
    }
    BenchmarkReport.write(
        Path.of("target", "benchmarks"), "outbox-production", "", rows, checks, notes);
  }

  private record KeepUp(int rate, double delivered, long worstMs, long p99Ms, boolean complete) {
    boolean keptUp() {
      return complete && worstMs <= KEEP_UP_MS;
    }

    String describe() {
      return String.format(
          Locale.ROOT,
          "keep-up at %,d/s: delivered %,.0f/s in the measured window, worst delay %,d ms, p99 of the"
              + " per-second worst %,d ms, all delivered: %s -> %s",
          rate,
          delivered,
          worstMs,
          p99Ms,
          complete,
          keptUp() ? "kept up" : "not kept up");
    }
  }

  private static KeepUp keepUp(
      PostgresProcess pg, OutboxShards shards, Tracker tracker, int rate, Duration window)
      throws Exception {
    int events = (int) (rate * (WARM.toSeconds() + window.toSeconds()));
    long before = tracker.count();
    long started = System.currentTimeMillis();
    try (WorkerProcess writer = startWriter(pg, shards, rate, events)) {
      writer.awaitExit(window.plus(WARM).plusMinutes(5));
    }
    long from = started + WARM.toMillis();
    // Everything written must arrive; the window runs to the last arrival, so a late one counts.
    boolean complete = tracker.awaitCount(before + events, Duration.ofSeconds(30));
    Tracker.Window w = tracker.window(from, tracker.lastReceived() + 1_000);
    return new KeepUp(
        rate, w.received() / (window.toMillis() / 1000.0), w.worst(), w.p99OfSeconds(), complete);
  }

  private record CatchUp(
      int backlog, double firstEventSeconds, double drainPerSecond, double totalSeconds) {
    String describe() {
      return String.format(
          Locale.ROOT,
          "catch-up: %,d events committed with the relay down; a new relay process delivered its first"
              + " event %.1f s after it started and drained the backlog at %,.0f events/s (all in %.1f s"
              + " from its start)",
          backlog,
          firstEventSeconds,
          drainPerSecond,
          totalSeconds);
    }
  }

  private static CatchUp catchUp(
      Path jar,
      Map<String, String> settings,
      OutboxShards shards,
      PostgresProcess pg,
      Tracker tracker,
      int backlog)
      throws Exception {
    try (WorkerProcess writer = startWriter(pg, shards, 0, backlog)) {
      writer.awaitExit(Duration.ofMinutes(10));
    }
    long before = tracker.count();
    long started = System.currentTimeMillis();
    try (Relays relays = Relays.launch(jar, settings, shards)) {
      if (!tracker.awaitCount(before + 1, Duration.ofMinutes(2))) {
        throw new IllegalStateException("the new relays delivered nothing: " + relays.output());
      }
      long first = tracker.lastReceived();
      if (!tracker.awaitCount(before + backlog, Duration.ofMinutes(10))) {
        throw new IllegalStateException("the backlog did not drain: " + relays.output());
      }
      long last = tracker.lastReceived();
      return new CatchUp(
          backlog,
          (first - started) / 1000.0,
          backlog / Math.max(0.001, (last - first) / 1000.0),
          (last - started) / 1000.0);
    }
  }

  /** One relay process per shard, from the packaged jar; SIGTERM for all on close. */
  private record Relays(List<WorkerProcess> processes) implements AutoCloseable {

    /** Starts them and waits until every one streams. */
    static Relays start(Path jar, Map<String, String> settings, OutboxShards shards) {
      Relays relays = launch(jar, settings, shards);
      long deadline = System.nanoTime() + Duration.ofMinutes(2).toNanos();
      for (WorkerProcess relay : relays.processes()) {
        while (!relay.output().contains(Courier.RELAY_STREAMING)) {
          if (!relay.isAlive() || System.nanoTime() > deadline) {
            relays.close();
            throw new IllegalStateException("a relay did not start streaming: " + relay.output());
          }
          LockSupport.parkNanos(Duration.ofMillis(50).toNanos());
        }
      }
      return relays;
    }

    /** Starts them, all at once, without waiting. */
    static Relays launch(Path jar, Map<String, String> settings, OutboxShards shards) {
      List<WorkerProcess> processes = new ArrayList<>();
      for (int shard = 0; shard < shards.count(); shard++) {
        List<String> args = new ArrayList<>(List.of("relay", "--set", "relay.http.port=0"));
        settings.forEach((k, v) -> args.addAll(List.of("--set", k + "=" + v)));
        args.addAll(List.of("--set", OutboxRelayConfig.SHARD_INDEX + "=" + shard));
        JvmWorker worker =
            JvmWorker.of(Courier.class)
                .name("relay-" + shard)
                .classpath(jar.toAbsolutePath().toString())
                .args(args.toArray(String[]::new));
        // The heap the Kubernetes manifest gives it (75% of a 768 MiB limit); more JVM options
        // with -Dbench.jvm.relay="...", e.g. -XX:SharedArchiveFile=... for class-data sharing.
        worker.jvmOption("-Xmx576m");
        for (String option : System.getProperty("bench.jvm.relay", "").split(" ")) {
          if (!option.isBlank()) {
            worker.jvmOption(option.replace("{shard}", String.valueOf(shard)));
          }
        }
        processes.add(worker.start());
      }
      return new Relays(processes);
    }

    String output() {
      return processes.stream().map(WorkerProcess::output).reduce("", String::concat);
    }

    @Override
    public void close() {
      processes.forEach(p -> p.terminate(Duration.ofSeconds(30)));
    }
  }

  private static WorkerProcess startWriter(
      PostgresProcess pg, OutboxShards shards, int rate, int events) {
    return JvmWorker.of(OutboxWriterProcess.class)
        .name("writer")
        .args(
            pg.host(),
            String.valueOf(pg.port()),
            "postgres",
            pg.username(),
            pg.password(),
            String.valueOf(rate),
            String.valueOf(events),
            String.valueOf(shards.count()))
        .start();
  }

  private static Map<String, String> relaySettings(KafkaProcess kafka, PostgresProcess pg) {
    return OutboxPipelineBenchmark.relaySettings(
        kafka.bootstrapServers(),
        "jdbc:postgresql://" + pg.host() + ":" + pg.port() + "/postgres",
        pg.username(),
        pg.password(),
        "prod");
  }

  /**
   * Reads the topic on a thread of its own and keeps, per second of arrival, how many events came
   * and the worst delay from the commit time in their payload.
   */
  private static final class Tracker implements AutoCloseable {
    private final KafkaConsumer<byte[], byte[]> consumer;
    private final Thread thread;
    private final AtomicLong count = new AtomicLong();
    private final ConcurrentSkipListMap<Long, long[]> perSecond = new ConcurrentSkipListMap<>();
    private volatile long lastReceived;
    private volatile boolean running = true;

    /** Received events and worst delay per second of a window. */
    record Window(long received, long worst, long p99OfSeconds) {}

    Tracker(KafkaProcess kafka, String topic) {
      Map<String, Object> config =
          new java.util.HashMap<>(
              Map.of(
                  ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
                  kafka.bootstrapServers(),
                  ConsumerConfig.GROUP_ID_CONFIG,
                  UniqueNames.group("prod-tracker"),
                  ConsumerConfig.AUTO_OFFSET_RESET_CONFIG,
                  "earliest",
                  ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG,
                  false,
                  ConsumerConfig.MAX_POLL_RECORDS_CONFIG,
                  2_000));
      consumer =
          new KafkaConsumer<>(config, new ByteArrayDeserializer(), new ByteArrayDeserializer());
      consumer.subscribe(List.of(topic));
      thread = new Thread(this::read, "prod-tracker");
      thread.setDaemon(true);
      thread.start();
    }

    private void read() {
      try {
        while (running) {
          for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(100))) {
            long now = System.currentTimeMillis();
            long at = at(r.value());
            long delay = at < 0 ? 0 : now - at;
            perSecond.compute(
                now / 1000,
                (s, v) -> {
                  long[] cell = v == null ? new long[2] : v;
                  cell[0]++;
                  cell[1] = Math.max(cell[1], delay);
                  return cell;
                });
            lastReceived = now;
            count.incrementAndGet();
          }
        }
      } catch (WakeupException e) {
        // closing
      } finally {
        consumer.close();
      }
    }

    /** The commit time the paced writer put in the payload, or -1 for a backlog event. */
    private static long at(byte[] value) {
      String json = new String(value, StandardCharsets.UTF_8);
      int i = json.indexOf("\"at\":");
      if (i < 0) {
        return -1;
      }
      int end = i + 5;
      while (end < json.length() && Character.isDigit(json.charAt(end))) {
        end++;
      }
      return Long.parseLong(json.substring(i + 5, end));
    }

    long count() {
      return count.get();
    }

    long lastReceived() {
      return lastReceived;
    }

    boolean awaitCount(long n, Duration timeout) {
      long deadline = System.nanoTime() + timeout.toNanos();
      while (count.get() < n) {
        if (System.nanoTime() > deadline) {
          return false;
        }
        LockSupport.parkNanos(Duration.ofMillis(5).toNanos());
      }
      return true;
    }

    Window window(long fromMillis, long toMillis) {
      long received = 0;
      long worst = 0;
      List<Long> worsts = new ArrayList<>();
      for (long[] cell : perSecond.subMap(fromMillis / 1000, toMillis / 1000).values()) {
        received += cell[0];
        worst = Math.max(worst, cell[1]);
        worsts.add(cell[1]);
      }
      worsts.sort(null);
      long p99 =
          worsts.isEmpty()
              ? 0
              : worsts.get(Math.min(worsts.size() - 1, (int) Math.ceil(worsts.size() * 0.99) - 1));
      return new Window(received, worst, p99);
    }

    @Override
    public void close() throws InterruptedException {
      running = false;
      consumer.wakeup();
      thread.join(10_000);
    }
  }
}
