package dev.courier.benchmarks;

import dev.courier.benchmarks.CapturePhase.Load;
import dev.courier.benchmarks.CapturePhase.Reader;
import dev.courier.benchmarks.CapturePhase.Result;
import dev.courier.outbox.OutboxRelayConfig;
import dev.courier.outbox.OutboxSchema;
import dev.courier.outbox.OutboxShards;
import dev.courier.testkit.JvmWorker;
import dev.courier.testkit.KafkaProcess;
import dev.courier.testkit.PostgresProcess;
import dev.courier.testkit.WorkerProcess;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The outbox as it is deployed, each part a process of its own: PostgreSQL with fsync on, a
 * standalone broker, the relay from the packaged {@code courier.jar}, a writer JVM and this harness
 * reading the topic. With two cores or more the reader under test runs alone on core 1 ({@code
 * taskset}) and everything else on core 0, so what is measured is the reader's own capacity and not
 * the writer's appetite. There a {@link CoreProbe} on each core times it throughout, so a reader
 * whose core the host slowed (or whose PostgreSQL's) shows it.
 *
 * <ul>
 *   <li><b>keep-up in the outbox's shape</b>: 4 writer threads commit one event per transaction
 *       ({@code one}), or 1-10 ({@code mix}), at each offered rate (0: as fast as they commit), for
 *       a cold reader started just before: Courier's relay, (b) Debezium alone and (a) raw pgoutput
 *       in turn ({@link CapturePhase}). Per rate and reader: kept up (every event within 1 s of its
 *       write, from the first second), worst delay, insert-to-consumed events/s and the reader's
 *       CPU time per event from {@code /proc}.
 *   <li><b>ceiling</b>: a backlog of one event per transaction, committed at full speed with {@code
 *       synchronous_commit = off} while the reader is down (one writer core commits about 3,000 a
 *       second, less than any reader drains), then drained by the reader started cold: each
 *       reader's drain rate, its CPU per event, and the first 10 s against the rest (the cold
 *       phase).
 *   <li><b>catch-up</b>: with the relay stopped, a backlog is committed at full speed; then a new
 *       relay process starts: the time from its start to the first event, and its drain rate.
 * </ul>
 *
 * <p>Run (after {@code mvn -B -q package -DskipTests -pl
 * modules/courier-cli,modules/courier-benchmarks -am}): {@code java -cp
 * modules/courier-benchmarks/target/benchmarks.jar dev.courier.benchmarks.OutboxProductionRun
 * [rates,..] [seconds] [backlog] [partitions] [shards]}; {@code -Dbench.shapes=one,mix}, {@code
 * -Dbench.readers=courier,debezium,pgoutput}, {@code -Dbench.fullspeed.events=N} (rate 0), {@code
 * -Dbench.ceiling.events=N} (0: none), {@code -Dbench.ceiling.rounds=N} (the ceiling's readers N
 * times, in reverse every other round; each ratio taken within its round); {@code
 * -Dbench.courier.jar} names another jar, {@code -Dbench.relay.<key>=<value>} sets the relay and
 * {@link RelayProcesses} its JVM, {@code -Dbench.jvm.capture="..."} the JVM of Debezium alone and
 * raw pgoutput. Shards apply to catch-up.
 */
public final class OutboxProductionRun {

  static final int WRITER_THREADS = 4;

  private OutboxProductionRun() {}

  public static void main(String[] args) throws Exception {
    int[] rates =
        Arrays.stream((args.length > 0 ? args[0] : "500,1000,2000,0").split(","))
            .filter(r -> !r.isBlank()) // "": no paced phases, e.g. for the ceiling alone
            .mapToInt(Integer::parseInt)
            .toArray();
    int seconds = args.length > 1 ? Integer.parseInt(args[1]) : 30;
    int backlog = args.length > 2 ? Integer.parseInt(args[2]) : 100_000;
    int partitions = args.length > 3 ? Integer.parseInt(args[3]) : 3;
    OutboxShards shards = OutboxShards.of(args.length > 4 ? Integer.parseInt(args[4]) : 1);
    List<ShapedWriter.Shape> shapes =
        Arrays.stream(System.getProperty("bench.shapes", "one,mix").split(","))
            .map(ShapedWriter.Shape::parse)
            .toList();
    List<Reader> readers =
        Arrays.stream(System.getProperty("bench.readers", "courier,debezium,pgoutput").split(","))
            .map(r -> Reader.valueOf(r.toUpperCase(Locale.ROOT)))
            .toList();
    int ceilingEvents = Integer.getInteger("bench.ceiling.events", 400_000);
    int ceilingRounds = Integer.getInteger("bench.ceiling.rounds", 1);
    Path jar = CourierJar.path();
    boolean pinned = Cores.available();
    if (pinned) {
      Cores.pinSelf(0); // the broker, PostgreSQL and the writer started from here inherit core 0
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
                .start();
        // On both cores for the whole run, so each reader's figures carry the speed of both.
        CoreProbe readerCore = pinned ? CoreProbe.start(CapturePhase.READER_CORE) : CoreProbe.NONE;
        CoreProbe otherCore = pinned ? CoreProbe.start(0) : CoreProbe.NONE) {
      OutboxSchema.migrate(pg.dataSource("postgres"), shards);
      Duration warmUp = Duration.ofSeconds(Integer.getInteger("bench.broker.warmup.seconds", 10));
      if (!warmUp.isZero()) {
        int transactions = BrokerWarmUp.warm(kafka, warmUp);
        notes.add(
            "the broker served "
                + transactions
                + " one-record transactions and committed reads for "
                + warmUp.toSeconds()
                + " s before the first phase, as a production broker has");
      }
      List<Result> results = new ArrayList<>();
      for (ShapedWriter.Shape shape : shapes) {
        for (int rate : rates) {
          int events =
              rate == 0 ? Integer.getInteger("bench.fullspeed.events", 60_000) : rate * seconds;
          for (Reader reader : readers) {
            Result r =
                CapturePhase.run(
                    reader,
                    Load.paced(shape, rate, events),
                    kafka,
                    pg,
                    jar,
                    partitions,
                    readerCore,
                    otherCore);
            notes.add(r.describe());
            results.add(r);
            System.out.println(r.describe());
          }
        }
      }
      for (int round = 0; ceilingEvents > 0 && round < ceilingRounds; round++) {
        // Every other round in reverse: a machine whose speed drifts favours no reader.
        List<Reader> order = new ArrayList<>(readers);
        if (round % 2 == 1) {
          Collections.reverse(order);
        }
        for (Reader reader : order) {
          Load load = Load.backlogOfOne(ceilingEvents);
          Result r =
              CapturePhase.run(reader, load, kafka, pg, jar, partitions, readerCore, otherCore);
          notes.add((ceilingRounds > 1 ? "round " + (round + 1) + ": " : "") + r.describe());
          results.add(r);
          System.out.println(r.describe());
        }
      }
      ProductionReport.add(results, rows, checks);
      if (backlog > 0) {
        catchUpPhase(jar, kafka, pg, shards, partitions, backlog, checks, notes);
      }
      notes.add(
          String.format(
              Locale.ROOT,
              "PostgreSQL process (fsync on), standalone broker, readers from %s (each in its own"
                  + " JVM, -Xmx576m, -XX:ActiveProcessorCount=1; the relay's as its manifest"
                  + " starts it: %s), writer JVM with %d threads; %s; topic with %d partitions;"
                  + " %d s per paced rate",
              jar.getFileName(),
              RelayJvm.describe(),
              WRITER_THREADS,
              pinned
                  ? "the reader under test alone on core 1, everything else on core 0"
                  : "no pinning (taskset or a second core missing)",
              partitions,
              seconds));
    }
    BenchmarkReport.write(
        Path.of("target", "benchmarks"), "outbox-production", "", rows, checks, notes);
  }

  /** The catch-up phase: a backlog of 500-event transactions, drained by new relay processes. */
  private static void catchUpPhase(
      Path jar,
      KafkaProcess kafka,
      PostgresProcess pg,
      OutboxShards shards,
      int partitions,
      int backlog,
      List<Check> checks,
      List<String> notes)
      throws Exception {
    Map<String, String> settings = relaySettings(kafka, pg);
    settings.put(OutboxRelayConfig.SHARD_COUNT, String.valueOf(shards.count()));
    String topic = settings.get(OutboxRelayConfig.TOPIC_PREFIX) + ".account";
    kafka.createTopic(topic, partitions);
    try (TopicArrivals tracker = new TopicArrivals(kafka, topic)) {
      CatchUp catchUp = catchUp(jar, settings, shards, pg, tracker.arrivals(), backlog);
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
      Arrivals tracker,
      int backlog)
      throws Exception {
    // A first start makes the slots, so the backlog written next waits in them.
    RelayProcesses.start(jar, settings, shards).close();
    try (WorkerProcess writer = startWriter(pg, shards, 0, backlog)) {
      writer.awaitExit(Duration.ofMinutes(10));
    }
    long before = tracker.count();
    long started = System.currentTimeMillis();
    try (RelayProcesses relays = RelayProcesses.launch(jar, settings, shards)) {
      if (Cores.available()) {
        relays.processes().forEach(p -> Cores.pin(p.pid(), CapturePhase.READER_CORE));
      }
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

  /** The legacy writer: full speed, 500 events a transaction (a backlog). */
  private static WorkerProcess startWriter(
      PostgresProcess pg, OutboxShards shards, int rate, int events) {
    return writer(pg, String.valueOf(rate), String.valueOf(events), String.valueOf(shards.count()))
        .start();
  }

  /** A writer of {@code load}'s shape, rate and commit mode, {@link #WRITER_THREADS} threads. */
  static WorkerProcess startWriter(PostgresProcess pg, Load load) {
    return writer(
            pg,
            String.valueOf(load.perSecond()),
            String.valueOf(load.events()),
            "1",
            load.shape().name().toLowerCase(Locale.ROOT),
            String.valueOf(WRITER_THREADS),
            load.asyncCommit() ? "async" : "sync")
        .start();
  }

  private static JvmWorker writer(PostgresProcess pg, String... rest) {
    List<String> args =
        new ArrayList<>(
            List.of(
                pg.host(), String.valueOf(pg.port()), "postgres", pg.username(), pg.password()));
    args.addAll(List.of(rest));
    return JvmWorker.of(OutboxWriterProcess.class).name("writer").args(args.toArray(String[]::new));
  }

  static Map<String, String> relaySettings(KafkaProcess kafka, PostgresProcess pg) {
    return OutboxPipelineBenchmark.relaySettings(
        kafka.bootstrapServers(),
        "jdbc:postgresql://" + pg.host() + ":" + pg.port() + "/postgres",
        pg.username(),
        pg.password(),
        "prod");
  }
}
