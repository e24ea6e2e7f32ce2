package dev.courier.benchmarks;

import dev.courier.cli.Courier;
import dev.courier.outbox.OutboxRelayConfig;
import dev.courier.testkit.FreePorts;
import dev.courier.testkit.JvmWorker;
import dev.courier.testkit.KafkaProcess;
import dev.courier.testkit.PostgresProcess;
import dev.courier.testkit.RawHttp;
import dev.courier.testkit.SettingsFile;
import dev.courier.testkit.TcpProxy;
import dev.courier.testkit.UniqueNames;
import dev.courier.testkit.WorkerProcess;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;

/**
 * A seeded, randomized fault run for the outbox relay as deployed: two {@code courier relay}
 * replicas on one slot, each in its own JVM (one reaching PostgreSQL and the broker through {@link
 * TcpProxy}s, so the network between it and both can be cut), PostgreSQL and a broker in theirs, a
 * writer committing events for 20 keys at a steady rate, and consumers reading the events and the
 * dead letters. Meanwhile, at moments the seed picks: a replica is SIGKILLed or SIGTERMed and
 * started again, the broker is killed and restarted, PostgreSQL crashes and recovers, the leader is
 * frozen (SIGSTOP) past its lease and woken, the proxied replica is cut off from PostgreSQL and
 * Kafka together past its lease and healed, and an event too large for Kafka is written (the run's
 * {@code outbox.invalid.row.policy=dead-letter} parks it). It reports, in all and per fault kind
 * (each event charged to the fault under way when it was committed), events committed, lost (must
 * be 0: neither delivered nor parked) and per-key order violations (must be 0: the first copy of
 * each event arrives in commit order per key), and recovery times, and fails if anything was lost
 * or reordered.
 *
 * <p>Run: {@code java -cp modules/courier-benchmarks/target/benchmarks.jar
 * dev.courier.benchmarks.RelayFaultRun [seed] [seconds of writing] [events/s]}; the relays run from
 * {@code courier.jar} ({@code -Dbench.courier.jar} names another).
 */
public final class RelayFaultRun {

  private static final Duration LEASE = Duration.ofSeconds(4);

  private final long seed;
  private final int seconds;
  private final int perSecond;
  private final Random random;
  private final List<String> events = new ArrayList<>();
  private final DeliveryLedger ledger = new DeliveryLedger();

  private final RelayFaultLoad load;
  private final Map<String, List<Double>> recoveries = new TreeMap<>();
  private final WorkerProcess[] relays = new WorkerProcess[2];
  private final List<WorkerProcess> everyRelay = new ArrayList<>();
  private final Path[] configs = new Path[2];
  private final int[] httpPorts = {FreePorts.next(), FreePorts.next()};
  private long t0;

  private RelayFaultRun(long seed, int seconds, int perSecond) {
    this.seed = seed;
    this.seconds = seconds;
    this.perSecond = perSecond;
    this.random = new Random(seed);
    this.load = new RelayFaultLoad(ledger, random, perSecond);
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
        KafkaProcess kafka = KafkaProcess.withProxiedListener().start();
        TcpProxy database = TcpProxy.to(pg.port())) {
      String prefix = UniqueNames.topic("faults").replace('-', '_');
      Map<String, String> settings = new LinkedHashMap<>();
      settings.putAll(
          OutboxRelayConfig.settings(
              kafka.bootstrapServers(), pg.jdbcUrl("postgres"), "postgres", "postgres", prefix));
      settings.put(OutboxRelayConfig.STARTUP_BACKOFF_MAX_MS, "1000");
      settings.put(OutboxRelayConfig.DELIVERY_TIMEOUT_MS, "10000");
      settings.put(OutboxRelayConfig.LEADER_LEASE_MS, String.valueOf(LEASE.toMillis()));
      settings.put(OutboxRelayConfig.INVALID_ROW_POLICY, "dead-letter");
      Map<String, String> cutOff = new LinkedHashMap<>(settings);
      cutOff.put(
          OutboxRelayConfig.BOOTSTRAP_SERVERS,
          kafka.proxiedClientSettings().get("bootstrap.servers"));
      cutOff.put(OutboxRelayConfig.DATABASE_PORT, String.valueOf(database.port()));
      cutOff.put("relay.http.port", String.valueOf(httpPorts[0]));
      settings.put("relay.http.port", String.valueOf(httpPorts[1]));
      configs[0] = SettingsFile.write(cutOff);
      configs[1] = SettingsFile.write(settings);
      String topic = prefix + ".account";
      kafka.createTopic(topic, 4);
      AtomicBoolean stop = new AtomicBoolean();
      ExecutorService threads = Executors.newFixedThreadPool(3);
      relays[0] = startRelay(0);
      t0 = System.nanoTime();
      try {
        // Rows committed before the slot exists are not captured: write once the relay streams.
        awaitSlot(pg, settings.get(OutboxRelayConfig.SLOT_NAME));
        relays[1] = startRelay(1);
        threads.submit(() -> load.consume(kafka, List.of(topic, prefix + ".outbox.dlt"), stop));
        var writing = threads.submit(() -> load.write(pg, stop));
        long end = System.nanoTime() + Duration.ofSeconds(seconds).toNanos();
        while (System.nanoTime() < end) {
          // The next fault comes 3 to 8 s later; the schedule is the point of a fault run.
          LockSupport.parkNanos(Duration.ofMillis(3_000 + random.nextInt(5_000)).toNanos());
          fault(pg, kafka, database);
        }
        stop.set(true);
        writing.get();
        long deadline = System.nanoTime() + Duration.ofMinutes(3).toNanos();
        while (!ledger.allAccountedFor() && System.nanoTime() < deadline) {
          LockSupport.parkNanos(Duration.ofMillis(200).toNanos()); // polling for the drain
        }
      } finally {
        stop.set(true);
        for (WorkerProcess relay : relays) {
          if (relay != null) {
            relay.terminate(Duration.ofSeconds(60));
          }
        }
        threads.shutdownNow();
        keepOutputs();
      }
    }
    DeliveryLedger.Result result = ledger.result();
    notes.add(
        String.format(
            Locale.ROOT,
            "seed %d, %d s of writing at %d events/s, two replicas: committed %d, delivered %d"
                + " (distinct %d), parked in the DLT %d (written too large), lost %d (target 0),"
                + " duplicates %d, per-key order violations %d (target 0)",
            seed,
            seconds,
            perSecond,
            result.committed(),
            result.delivered(),
            result.distinct(),
            ledger.parked(),
            result.lost(),
            result.delivered() - result.distinct(),
            result.violations()));
    notes.add("by the fault under way at commit: " + String.join("; ", result.perKind()));
    List<String> times = new ArrayList<>();
    recoveries.forEach((kind, s) -> times.add(kind + " " + DeliveryLedger.summary(s)));
    notes.add(
        "recovery, from the fault (or the return of what was killed) to the first new event"
            + " delivered: "
            + String.join("; ", times));
    notes.add("faults: " + String.join("; ", events));
    BenchmarkReport.write(
        Path.of("target", "benchmarks"), "relay-faults", "events", List.of(), List.of(), notes);
    if (result.lost() > 0 || result.violations() > 0) {
      throw new IllegalStateException(
          "relay fault run with seed "
              + seed
              + ": "
              + result.lost()
              + " lost, "
              + result.violations()
              + " reordered; "
              + result.perKind());
    }
  }

  private void fault(PostgresProcess pg, KafkaProcess kafka, TcpProxy database) {
    int which = random.nextInt(2);
    switch (random.nextInt(8)) {
      case 0, 1 -> {
        // Per role: a killed leader's recovery is the standby's takeover, a standby's is nothing.
        String role = role(which);
        relays[which].kill();
        String kind = event("SIGKILL relay " + which + role, "SIGKILL relay" + role);
        relays[which] = startRelay(which);
        recovered(kind);
      }
      case 2 -> {
        String role = role(which);
        relays[which].terminate(Duration.ofSeconds(60));
        String kind = event("SIGTERM relay " + which + role, "SIGTERM relay" + role);
        relays[which] = startRelay(which);
        recovered(kind);
      }
      case 3 -> {
        kafka.kill();
        String kind = event("SIGKILL broker", "SIGKILL broker");
        LockSupport.parkNanos(Duration.ofMillis(1_000 + random.nextInt(3_000)).toNanos());
        kafka.start();
        event("broker back", kind);
        recovered(kind);
      }
      case 4 -> {
        pg.crash();
        String kind = event("PostgreSQL crash", "PostgreSQL crash");
        LockSupport.parkNanos(Duration.ofMillis(500 + random.nextInt(2_000)).toNanos());
        pg.start();
        event("PostgreSQL back", kind);
        recovered(kind);
      }
      case 5 -> {
        int leader = leader();
        if (leader < 0) {
          event("no leader to freeze", "freeze leader");
          return;
        }
        relays[leader].freeze();
        String kind = event("SIGSTOP leader " + leader, "freeze leader");
        double takeover = ledger.untilNextDelivery();
        relays[leader].thaw();
        event("SIGCONT relay " + leader, kind);
        recoveries.computeIfAbsent(kind, k -> new ArrayList<>()).add(takeover);
      }
      case 6 -> {
        String kind = "partition " + (leader() == 0 ? "leader" : "standby");
        database.partition();
        kafka.proxy().partition();
        event("relay 0 cut off from PostgreSQL and Kafka", kind);
        double takeover = ledger.untilNextDelivery();
        LockSupport.parkNanos(Duration.ofMillis(1_000 + random.nextInt(2_000)).toNanos());
        database.heal();
        kafka.proxy().heal();
        event("network healed", kind);
        recoveries.computeIfAbsent(kind, k -> new ArrayList<>()).add(takeover);
      }
      default -> {
        load.writeOversizedNext();
        event("an event too large for Kafka", "refused by Kafka");
      }
    }
  }

  private void recovered(String kind) {
    recoveries.computeIfAbsent(kind, k -> new ArrayList<>()).add(ledger.untilNextDelivery());
  }

  /** The replica that leads and streams ({@code /health} 200), or -1 when none answers so. */
  private int leader() {
    for (int i = 0; i < relays.length; i++) {
      try {
        if (relays[i] != null
            && RawHttp.send(httpPorts[i], "GET /health HTTP/1.1").status() == 200) {
          return i;
        }
      } catch (java.io.UncheckedIOException e) {
        // not answering: not the leader
      }
    }
    return -1;
  }

  private String role(int relay) {
    int leader = leader();
    return leader < 0 ? "" : leader == relay ? " (leader)" : " (standby)";
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

  private WorkerProcess startRelay(int replica) {
    // From the packaged jar, as deployed: the benchmarks' own jar carries a no-op SLF4J binding,
    // so relays started from it kept no log of what a fault did to them.
    JvmWorker worker =
        JvmWorker.of(Courier.class)
            .classpath(CourierJar.path().toString())
            .name("relay-" + replica)
            .args("relay", "--config", configs[replica].toString());
    RelayJvm.options().forEach(worker::jvmOption);
    RelayJvm.extra(String.valueOf(replica), String.valueOf(everyRelay.size() + 1))
        .forEach(worker::jvmOption);
    WorkerProcess relay = worker.start();
    everyRelay.add(relay);
    return relay;
  }

  /** Each relay process's output, for reading what a fault did to it. */
  private void keepOutputs() throws java.io.IOException {
    Path dir = Path.of("target", "benchmarks", "relay-faults-logs");
    java.nio.file.Files.createDirectories(dir);
    for (int i = 0; i < everyRelay.size(); i++) {
      java.nio.file.Files.writeString(
          dir.resolve("relay-process-" + i + ".log"), everyRelay.get(i).output());
    }
  }

  /** Logs the fault; events committed from now on are charged to {@code kind}. */
  private String event(String what, String kind) {
    events.add(String.format(Locale.ROOT, "%.1fs %s", (System.nanoTime() - t0) / 1e9, what));
    ledger.faultUnderWay(kind);
    return kind;
  }
}
