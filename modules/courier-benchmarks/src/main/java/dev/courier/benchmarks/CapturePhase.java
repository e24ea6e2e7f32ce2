package dev.courier.benchmarks;

import dev.courier.outbox.OutboxRelayConfig;
import dev.courier.testkit.JvmWorker;
import dev.courier.testkit.KafkaProcess;
import dev.courier.testkit.PostgresProcess;
import dev.courier.testkit.WorkerProcess;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.locks.LockSupport;

/**
 * One reader of the outbox's changes, started cold on a core of its own while a writer on the other
 * core commits a shape of transactions at an offered rate: Courier's relay from {@code courier.jar}
 * (read back from the topic), (b) Debezium alone or (a) raw pgoutput ({@link CaptureProcess}). What
 * it measures: whether every event came within 1 s of its write, the worst delay (in the first 10 s
 * of the cold start and after), insert-to-consumed events/s, and the reader's CPU time per event
 * from {@code /proc}.
 */
final class CapturePhase {

  /** Who reads the outbox. */
  enum Reader {
    COURIER("Courier relay"),
    DEBEZIUM("(b) Debezium alone"),
    PGOUTPUT("(a) raw pgoutput");

    final String label;

    Reader(String label) {
      this.label = label;
    }
  }

  /**
   * What the writer does: its shape, rate (0: as fast as it commits), events, commit mode; with
   * {@code backlog} it writes them all while the reader is down, and the reader then drains them.
   */
  record Load(
      ShapedWriter.Shape shape, int perSecond, int events, boolean asyncCommit, boolean backlog) {
    /** A writer the reader reads behind, as it commits. */
    static Load paced(ShapedWriter.Shape shape, int perSecond, int events) {
      return new Load(shape, perSecond, events, false, false);
    }

    /**
     * A backlog of one event per transaction, committed asynchronously at full speed while the
     * reader is down: what the reader drains once started is its ceiling in that shape, which one
     * writer core cannot commit fast enough to show while the reader reads.
     */
    static Load backlogOfOne(int events) {
      return new Load(ShapedWriter.Shape.ONE, 0, events, true, true);
    }

    String describe() {
      return shape.name().toLowerCase(Locale.ROOT)
          + (backlog
              ? " backlog of " + events
              : (perSecond == 0 ? " full speed" : " " + perSecond + "/s"))
          + (asyncCommit && !backlog ? " async" : "");
    }
  }

  /**
   * One reader's figures under one load. Under a backlog, {@code consumedPerSecond} is the drain
   * rate from the first event to the last, and {@code firstEventSeconds} runs from the reader's
   * start; otherwise they run from the first commit.
   */
  record Result(
      Reader reader,
      Load load,
      boolean complete,
      double committedPerSecond,
      double consumedPerSecond,
      double firstEventSeconds,
      long worstMs,
      long worstFirst10sMs,
      double first10sPerSecond,
      double afterPerSecond,
      double cpuMicrosPerEvent,
      double warmCpuMicrosPerEvent,
      List<Double> coreShareBySecond,
      List<String> arrivalsBySecond,
      double coreProbeMillis,
      double otherCoreProbeMillis) {

    boolean keptUp() {
      return complete && worstMs <= 1_000;
    }

    String describe() {
      String figures =
          load.backlog()
              ? String.format(
                  Locale.ROOT,
                  "written at %,.0f events/s with the reader down; from its start, first event"
                      + " %.2f s, drained at %,.0f/s from the first event to the last",
                  committedPerSecond,
                  firstEventSeconds,
                  consumedPerSecond)
              : String.format(
                  Locale.ROOT,
                  "writer committed %,.0f events/s, insert-to-consumed %,.0f/s, worst delay %,d ms"
                      + " (first 10 s: %,d ms)",
                  committedPerSecond,
                  consumedPerSecond,
                  worstMs,
                  worstFirst10sMs);
      return String.format(
          Locale.ROOT,
          "%s, %s: %s; %,.0f/s in the first 10 s, %,.0f/s after; CPU %.1f µs/event (%.1f after"
              + " its first 10 s), all delivered: %s%s; share of its core in each of the first"
              + " seconds: %s; events/worst delay ms in each: %s; its core's speed probe while it"
              + " read: %.2f ms a unit (the other core's: %.2f)",
          load.describe(),
          reader.label,
          figures,
          first10sPerSecond,
          afterPerSecond,
          cpuMicrosPerEvent,
          warmCpuMicrosPerEvent,
          complete,
          load.backlog() ? "" : (keptUp() ? " -> kept up" : " -> not kept up"),
          coreShareBySecond.stream()
              .map(v -> String.format(Locale.ROOT, "%.0f%%", v * 100))
              .toList(),
          arrivalsBySecond,
          coreProbeMillis,
          otherCoreProbeMillis);
    }
  }

  static final int READER_CORE = 1;
  private static final Duration START = Duration.ofMinutes(2);

  private CapturePhase() {}

  static Result run(
      Reader reader,
      Load load,
      KafkaProcess kafka,
      PostgresProcess pg,
      Path jar,
      int partitions,
      CoreProbe readerCore,
      CoreProbe otherCore)
      throws Exception {
    Map<String, String> settings = OutboxProductionRun.relaySettings(kafka, pg);
    String topic = settings.get(OutboxRelayConfig.TOPIC_PREFIX) + ".account";
    kafka.createTopic(topic, partitions);
    TopicArrivals topicReader = reader == Reader.COURIER ? new TopicArrivals(kafka, topic) : null;
    String streaming =
        reader == Reader.COURIER ? RelayProcesses.STREAMING : CaptureProcess.STREAMING;
    WorkerProcess process = start(reader, settings, jar);
    try {
      // Streaming once makes the slot, so a backlog written next waits in it for the reader.
      awaitStreaming(process, streaming);
      String written = null;
      if (load.backlog()) {
        process.terminate(Duration.ofSeconds(30));
        keepOutput(reader, load, "-before", process.output());
        written = write(pg, load);
        process = start(reader, settings, jar);
      }
      long cpuBefore = load.backlog() ? 0 : Cores.cpuNanos(process.pid());
      long started = System.currentTimeMillis();
      CpuSampler sampler = CpuSampler.start(process.pid(), 10);
      if (!load.backlog()) {
        written = write(pg, load);
      }
      long[] commits = OutboxWriterProcess.span(written);
      Arrivals arrivals =
          topicReader != null ? topicReader.arrivals() : awaitPrinted(process, load.events());
      boolean complete = arrivals.awaitCount(load.events(), Duration.ofSeconds(120));
      long cpuNow = Cores.cpuNanos(process.pid());
      long cpu = cpuNow - cpuBefore;
      long first = arrivals.firstReceived();
      long last = arrivals.lastReceived();
      // Warm: from the sampler's last second (its 10th) on, so the start's compiling is left out.
      CpuSampler.Mark warm = sampler.last();
      long warmEvents =
          warm.cpuNanos() < 0 ? 0 : arrivals.window(warm.wallMillis(), last + 1_000).received();
      Arrivals.Window firstTen = arrivals.window(started, started + 10_000);
      Arrivals.Window after = arrivals.window(started + 10_000, last + 1_000);
      Arrivals.Window all = arrivals.window(started, last + 1_000);
      double afterSeconds = Math.max(1, (last - started - 10_000) / 1000.0);
      // A backlog is timed from the reader's start (first event) and its first event (drain);
      // a paced load from its first commit, for both.
      long firstEventFrom = load.backlog() ? started : commits[0];
      long consumedFrom = load.backlog() ? first : commits[0];
      return new Result(
          reader,
          load,
          complete,
          load.events() / Math.max(0.001, (commits[1] - commits[0]) / 1000.0),
          arrivals.count() / Math.max(0.001, (last - consumedFrom) / 1000.0),
          (first - firstEventFrom) / 1000.0,
          all.worst(),
          firstTen.worst(),
          firstTen.received() / 10.0,
          after.received() / afterSeconds,
          cpu / 1000.0 / Math.max(1, arrivals.count()),
          warmEvents == 0 ? Double.NaN : (cpuNow - warm.cpuNanos()) / 1000.0 / warmEvents,
          sampler.shares(),
          arrivals.bySecond(started, 10),
          readerCore.medianMillis(started, last),
          otherCore.medianMillis(started, last));
    } finally {
      process.terminate(Duration.ofSeconds(30));
      keepOutput(reader, load, "", process.output());
      if (topicReader != null) {
        topicReader.close();
      }
      dropSlot(pg, settings);
    }
  }

  /** Runs the load's writer to its end; its output, for {@link OutboxWriterProcess#span}. */
  private static String write(PostgresProcess pg, Load load) {
    try (WorkerProcess writer = OutboxProductionRun.startWriter(pg, load)) {
      writer.awaitExit(Duration.ofMinutes(30));
      return writer.output();
    }
  }

  /** The reader's output, under target/benchmarks, for a look at what its start did. */
  private static void keepOutput(Reader reader, Load load, String suffix, String output) {
    try {
      Path dir = Files.createDirectories(Path.of("target", "benchmarks", "readers"));
      String name =
          (load.describe() + "-" + reader.name())
              .toLowerCase(Locale.ROOT)
              .replace(' ', '-')
              .replace('/', '-');
      Files.writeString(dir.resolve(name + suffix + ".log"), output);
    } catch (java.io.IOException e) {
      System.err.println("cannot keep the reader's output: " + e);
    }
  }

  private static WorkerProcess start(Reader reader, Map<String, String> settings, Path jar) {
    WorkerProcess p;
    if (reader == Reader.COURIER) {
      p = RelayProcesses.launchOne(jar, settings, 0, List.of("-XX:ActiveProcessorCount=1"));
    } else {
      List<String> args = new ArrayList<>();
      args.add(reader == Reader.DEBEZIUM ? "debezium" : "pgoutput");
      settings.forEach((k, v) -> args.add(k + "=" + v));
      JvmWorker worker =
          JvmWorker.of(CaptureProcess.class)
              .name(reader.name().toLowerCase(Locale.ROOT))
              .jvmOption("-Xmx576m")
              .jvmOption("-XX:ActiveProcessorCount=1");
      // The same hook as the relay's (bench.jvm.relay), e.g. a flight recording of Debezium alone.
      for (String option : System.getProperty("bench.jvm.capture", "").split(" ")) {
        if (!option.isBlank()) {
          worker.jvmOption(option);
        }
      }
      p = worker.args(args.toArray(String[]::new)).start();
    }
    if (Cores.available()) {
      Cores.pin(p.pid(), READER_CORE);
    }
    return p;
  }

  private static void awaitStreaming(WorkerProcess p, String line) {
    long deadline = System.nanoTime() + START.toNanos();
    while (!p.output().contains(line)) {
      if (!p.isAlive() || System.nanoTime() > deadline) {
        throw new IllegalStateException("the reader did not start streaming: " + p.output());
      }
      LockSupport.parkNanos(Duration.ofMillis(20).toNanos());
    }
  }

  /** A capture process's printed seconds, once they add up to {@code events} (or a minute). */
  private static Arrivals awaitPrinted(WorkerProcess p, long events) {
    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    Arrivals a = Arrivals.parse(p.output());
    while (a.count() < events && System.nanoTime() < deadline) {
      LockSupport.parkNanos(Duration.ofMillis(250).toNanos());
      a = Arrivals.parse(p.output());
    }
    return a;
  }

  /** The phase's slot and publication go, so no slot holds WAL back for the next. */
  private static void dropSlot(PostgresProcess pg, Map<String, String> settings) {
    String slot = settings.get(OutboxRelayConfig.SLOT_NAME);
    String publication = settings.get(OutboxRelayConfig.PUBLICATION_NAME);
    try (Connection c = pg.dataSource("postgres").getConnection();
        Statement s = c.createStatement()) {
      for (int tries = 0; tries < 50; tries++) {
        try {
          s.execute(
              "SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots"
                  + " WHERE slot_name = '"
                  + slot
                  + "'");
          break;
        } catch (java.sql.SQLException e) {
          LockSupport.parkNanos(Duration.ofMillis(100).toNanos()); // its reader is still leaving
        }
      }
      s.execute("DROP PUBLICATION IF EXISTS " + publication);
    } catch (java.sql.SQLException e) {
      throw new IllegalStateException("cannot drop slot " + slot, e);
    }
  }
}
