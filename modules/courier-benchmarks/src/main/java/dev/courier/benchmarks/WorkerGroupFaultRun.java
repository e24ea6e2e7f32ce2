package dev.courier.benchmarks;

import dev.courier.core.CourierHeaders;
import dev.courier.retry.DltFilter;
import dev.courier.retry.DltRecord;
import dev.courier.retry.DltReplayer;
import dev.courier.retry.RetryTopics;
import dev.courier.testkit.CommitHistory;
import dev.courier.testkit.KafkaBroker;
import dev.courier.testkit.KafkaProcess;
import dev.courier.testkit.KeyOrderCheck;
import dev.courier.testkit.PostgresProcess;
import dev.courier.testkit.RecordingEndpoint;
import dev.courier.testkit.UniqueNames;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourceType;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * A seeded, randomized fault run for a group of {@code courier retry-worker} processes: steady
 * input into four partitions, an endpoint that is slow, fails transiently at random (the same seed
 * gives the same failures) and refuses some records for good, while workers join, leave by SIGTERM
 * and are SIGKILLed, are frozen (SIGSTOP) past their session and woken, and are cut off from the
 * broker (half of them reach it through a {@link dev.courier.testkit.TcpProxy}) and healed, records
 * too large for the ladder's tiers arrive, and writing to the first tier or to the DLT is denied
 * for a few seconds by an ACL (Kafka refuses those forwards: a tier's are parked as {@code
 * forward-refused}, the DLT's are not taken and come again), at random moments.
 *
 * <p>Every guarantee is checked as a property over the whole run ({@link FaultRunResult}): nothing
 * lost (every record handled or dead-lettered), no commit of the group takes a partition back (its
 * whole commit history, read from {@code __consumer_offsets}), and with {@code ordered} ({@code
 * retry.ordering=key}) per-key order as both properties {@link KeyOrderCheck} states (first
 * handling, final state), no record parked after its last handling succeeded nor parked twice, and
 * every waiting-behind letter naming a record in the DLT. Records, losses and duplicates are
 * counted by the fault under way when each record was produced. {@link FaultCampaign} runs it over
 * many seeds.
 *
 * <p>Run: {@code java -cp modules/courier-benchmarks/target/benchmarks.jar
 * dev.courier.benchmarks.WorkerGroupFaultRun [seed] [seconds of input] [records/s] [ordered]}
 */
public final class WorkerGroupFaultRun {

  private static final int PARTITIONS = 4;
  private static final int MAX_WORKERS = 5;

  private final long seed;
  private final int seconds;

  /** With retry.ordering=key: each key's order is checked, and heads that go to the DLT park. */
  private final boolean ordered;

  /** Per ordering key, its records' operation keys in produce (main-topic) order. */
  private final Map<String, List<String>> byKey = new ConcurrentHashMap<>();

  private final int perSecond;
  private final Random random;
  private final List<String> events = new ArrayList<>();
  private long t0;

  /** {@link #t0} as wall-clock time, to place a dead letter's failure among the faults. */
  private long t0Wall;

  private String topic;

  /** The workers' group's ladder on {@link #topic}. */
  private RetryTopics ladder;

  private KafkaProcess broker;
  private FaultWorkers workers;

  /** The fault under way, charged to each record produced from then on. */
  private volatile String fault = DeliveryLedger.NO_FAULT;

  private final Set<String> tooLarge = ConcurrentHashMap.newKeySet();
  private final AtomicBoolean produceTooLarge = new AtomicBoolean();

  /** Everything allowed to everyone until an ACL says otherwise: a DENY takes a write away. */
  private static final Map<String, String> AUTHORIZER =
      Map.of(
          "authorizer.class.name", "org.apache.kafka.metadata.authorizer.StandardAuthorizer",
          "allow.everyone.if.no.acl.found", "true");

  /** Accepted on the main topic; over max.request.size once the ladder's headers are added. */
  private static final int LARGE = 1_048_000;

  private WorkerGroupFaultRun(long seed, int seconds, int perSecond, boolean ordered) {
    this.ordered = ordered;
    this.seed = seed;
    this.seconds = seconds;
    this.perSecond = perSecond;
    this.random = new Random(seed);
  }

  /** Records neither handled nor in the DLT yet. */
  private long unaccounted(RecordingEndpoint endpoint, DltReplayer replayer, int records) {
    Set<String> dead =
        replayer.list(ladder.deadLetter(), DltFilter.all()).stream()
            .map(d -> d.operationKey().orElse("?"))
            .collect(Collectors.toSet());
    return IntStream.range(0, records)
        .filter(i -> endpoint.successes(key(i)) == 0 && !dead.contains(key(i)))
        .count();
  }

  public static void main(String[] args) throws Exception {
    long seed = args.length > 0 ? Long.parseLong(args[0]) : 1;
    int seconds = args.length > 1 ? Integer.parseInt(args[1]) : 60;
    int perSecond = args.length > 2 ? Integer.parseInt(args[2]) : 40;
    boolean ordered = args.length > 3 && args[3].equals("ordered");
    FaultRunResult result = run(seed, seconds, perSecond, ordered);
    BenchmarkReport.write(
        Path.of("target", "benchmarks"),
        ordered ? "faults-ordered" : "faults",
        "records",
        List.of(),
        List.of(),
        List.of(
            result.describe(),
            "violations: "
                + result.violations()
                + " (target: none: 0 lost, no property broken, no commit moved back)"));
    if (!result.clean()) {
      throw new IllegalStateException(
          result.violations().size()
              + " violation(s) in fault run with seed "
              + seed
              + ": "
              + result.violations().subList(0, Math.min(5, result.violations().size())));
    }
  }

  /** One seeded run: its counts and every property checked. */
  static FaultRunResult run(long seed, int seconds, int perSecond, boolean ordered)
      throws Exception {
    return new WorkerGroupFaultRun(seed, seconds, perSecond, ordered).run();
  }

  private FaultRunResult run() throws Exception {
    int records = seconds * perSecond;
    String[] producedUnder = new String[records];
    try (PostgresProcess pg = PostgresProcess.builder().build().start();
        KafkaProcess process = KafkaProcess.withProxiedListener(AUTHORIZER).start();
        RecordingEndpoint endpoint = RecordingEndpoint.start(Duration.ofMillis(20), this::status)) {
      broker = process;
      KafkaBroker kafka = process.broker();
      topic = UniqueNames.topic("faults");
      String group = UniqueNames.group("faults");
      ladder = new RetryTopics(topic, group, 2);
      kafka.createTopic(topic, PARTITIONS);
      workers =
          new FaultWorkers(
              new FaultWorkers.Settings(topic, group, endpoint.url(), ordered),
              kafka.bootstrapServers(),
              process.proxiedClientSettings().get("bootstrap.servers"),
              random,
              this::event);
      ExecutorService input = Executors.newSingleThreadExecutor();
      t0 = System.nanoTime();
      t0Wall = System.currentTimeMillis();
      try {
        for (int i = 0; i < 3; i++) {
          workers.join();
        }
        List<String> read = ladder.all().subList(0, 3);
        // The workers create the tiers as they start; the drain below reads their lag.
        awaitTopics(kafka, read);
        Future<?> producing = input.submit(() -> produce(kafka, topic, records, producedUnder));
        while (!producing.isDone()) {
          // The next fault comes 1 to 4 s later; waiting is the point of a fault schedule.
          LockSupport.parkNanos(Duration.ofMillis(1_000 + random.nextInt(3_000)).toNanos());
          chaos();
        }
        producing.get();
        while (workers.alive() < 2) {
          workers.join();
        }
        long deadline = System.nanoTime() + Duration.ofMinutes(3).toNanos();
        while (kafka.uncommitted(group, read) > 0 && System.nanoTime() < deadline) {
          LockSupport.parkNanos(Duration.ofMillis(200).toNanos()); // polling for the drain
        }
        if (ordered) {
          // A waiting record's main-topic offset is committed once its key's chain is written:
          // no lag is not the end; every record handled or dead-lettered is.
          try (DltReplayer replayer =
              DltReplayer.create(kafka.clientSettings(), pg.dataSource("postgres"))) {
            while (unaccounted(endpoint, replayer, records) > 0 && System.nanoTime() < deadline) {
              LockSupport.parkNanos(Duration.ofMillis(500).toNanos()); // polling for the drain
            }
          }
        }
      } finally {
        input.shutdownNow();
        workers.close();
      }
      List<DltRecord> dead;
      try (DltReplayer replayer =
          DltReplayer.create(kafka.clientSettings(), pg.dataSource("postgres"))) {
        dead = replayer.list(ladder.deadLetter(), DltFilter.all());
      }
      Map<String, Long> dlt =
          dead.stream()
              .collect(
                  Collectors.groupingBy(DltRecord::reason, TreeMap::new, Collectors.counting()));
      Set<String> deadKeys =
          dead.stream().map(d -> d.operationKey().orElse("?")).collect(Collectors.toSet());
      long handled = 0;
      long duplicates = 0;
      long lost = 0;
      List<String> lostRecords = new ArrayList<>(); // the first ten, with their keys
      Map<String, long[]> byFault = new TreeMap<>(); // {records, lost, duplicates}
      for (int i = 0; i < records; i++) {
        String key = key(i);
        int done = endpoint.successes(key);
        handled += done > 0 ? 1 : 0;
        duplicates += Math.max(0, done - 1);
        long[] kind = byFault.computeIfAbsent(producedUnder[i], k -> new long[3]);
        kind[0]++;
        kind[2] += Math.max(0, done - 1);
        if (done == 0 && !deadKeys.contains(key)) {
          lost++;
          if (lostRecords.size() < 10) {
            lostRecords.add(
                String.format(
                    "%s of key acc-%d, produced about %.1fs in, under %s",
                    key, i % 97, i / (double) perSecond, producedUnder[i]));
          }
          kind[1]++;
        }
      }
      CommitHistory history = CommitHistory.of(kafka, group);
      KeyOrderCheck.Result order =
          ordered
              ? KeyOrderCheck.check(
                  endpoint.log(),
                  byKey,
                  3,
                  dead.stream().map(d -> d.operationKey().orElse("?")).toList())
              : new KeyOrderCheck.Result(List.of(), List.of(), List.of(), 0, 0);
      return new FaultRunResult(
          seed,
          ordered,
          records,
          handled,
          endpoint.totalCalls(),
          duplicates,
          lost,
          lostRecords,
          byFault,
          dlt,
          order.firstHandling(),
          order.finalState(),
          order.parking().stream().map(v -> v + letters(dead, v)).toList(),
          order.parkedAfterRepeat(),
          ordered ? waitingBehindNamesNoLetter(dead) : List.of(),
          history.backwardMoves(),
          history.commits().size(),
          workers.counts(),
          List.copyOf(events),
          tooLarge.size());
    }
  }

  /**
   * For a record parked more than once, its letters in DLT order, each with when its failure was
   * (seconds into the run, as the faults are listed): a letter whose failure came before the one
   * written ahead of it was written late, by a member that went on after its partition moved.
   */
  private String letters(List<DltRecord> dead, String violation) {
    if (!violation.contains(" parked ") || violation.endsWith("succeeded")) {
      return "";
    }
    String key = violation.substring(0, violation.indexOf(' '));
    return dead.stream()
        .filter(d -> d.operationKey().orElse("?").equals(key))
        .sorted(java.util.Comparator.comparingLong(DltRecord::offset))
        .map(
            d ->
                String.format(
                    Locale.ROOT,
                    "%d %s, failed at %.1fs",
                    d.offset(),
                    d.reason(),
                    (d.failedAt().toEpochMilli() - t0Wall) / 1e3))
        .collect(Collectors.joining("; ", " (letters at DLT offsets ", ")"));
  }

  /** Each record parked as waiting-behind names a record in the DLT. */
  private static List<String> waitingBehindNamesNoLetter(List<DltRecord> dead) {
    Set<String> deadAt =
        dead.stream()
            .map(d -> d.originalTopic() + "-" + d.originalPartition() + "@" + d.originalOffset())
            .collect(Collectors.toSet());
    List<String> violations = new ArrayList<>();
    for (DltRecord d : dead) {
      if (d.reason().equals("waiting-behind")
          && !d.blockedBy().map(deadAt::contains).orElse(false)) {
        violations.add(d.coordinates() + " waited behind " + d.blockedBy() + ", not in the DLT");
      }
    }
    return violations;
  }

  /**
   * 1 in 20 records is refused for good; with key order, another 1 in 20 fails once and is then
   * refused (its key waits behind it, then follows it into the DLT); any call fails transiently
   * with probability 0.1.
   */
  private int status(String key, int call) {
    if (key.startsWith("bad-")) {
      return 422;
    }
    if (key.startsWith("doomed-")) {
      return call == 1 ? 503 : 422;
    }
    if (tooLarge.contains(key)) {
      return 503; // forwarded to the first tier, which Kafka refuses for its size
    }
    // SplittableRandom mixes its seed: neighbouring keys and calls get independent draws.
    long mixed = seed * 0x9E3779B97F4A7C15L + key.hashCode() * 0xC2B2AE3D27D4EB4FL + call;
    return new SplittableRandom(mixed).nextDouble() < 0.1 ? 503 : 204;
  }

  private String key(int i) {
    return (i % 20 == 7 ? "bad-" : ordered && i % 20 == 13 ? "doomed-" : "op-") + i;
  }

  private void chaos() {
    int roll = random.nextInt(15);
    if (roll < 3 && workers.alive() < MAX_WORKERS) {
      workers.join();
    } else if (roll < 5 && workers.alive() > 1) {
      workers.terminateOne();
    } else if (roll < 7 && workers.alive() > 1) {
      workers.killOne();
    } else if (roll == 7 && workers.alive() > 1) {
      workers.freezeOne();
    } else if (roll == 8) {
      broker.proxy().partition();
      event("workers behind the proxy cut off", "partitioned workers");
      LockSupport.parkNanos(Duration.ofMillis(3_000 + random.nextInt(6_000)).toNanos());
      broker.proxy().heal();
      event("network healed", "partitioned workers");
    } else if (roll == 9) {
      produceTooLarge.set(true);
      event("a record too large for the tiers", "forward refused");
    } else if (roll == 10) {
      denyWrites(ladder.tier(1), "tier write denied");
    } else if (roll == 11) {
      denyWrites(ladder.deadLetter(), "DLT write denied");
    }
  }

  /** An ACL denies every client WRITE on {@code target} for 3 to 6 s, then goes. */
  private void denyWrites(String target, String kind) {
    AclBinding deny =
        new AclBinding(
            new ResourcePattern(ResourceType.TOPIC, target, PatternType.LITERAL),
            new AccessControlEntry(
                "User:ANONYMOUS", "*", AclOperation.WRITE, AclPermissionType.DENY));
    try {
      broker.admin().createAcls(List.of(deny)).all().get(30, TimeUnit.SECONDS);
      event("WRITE on " + target + " denied", kind);
      LockSupport.parkNanos(Duration.ofMillis(3_000 + random.nextInt(3_000)).toNanos());
      broker.admin().deleteAcls(List.of(deny.toFilter())).all().get(30, TimeUnit.SECONDS);
      event("WRITE on " + target + " allowed again", kind);
    } catch (Exception e) {
      throw new IllegalStateException("cannot change the ACLs of " + target + ": " + e, e);
    }
  }

  /** Logs the fault; records produced from now on are charged to {@code kind} when given. */
  private void event(String what, String kind) {
    events.add(String.format(Locale.ROOT, "%.1fs %s", (System.nanoTime() - t0) / 1e9, what));
    if (kind != null) {
      fault = kind;
    }
  }

  private void produce(KafkaBroker kafka, String topic, int records, String[] producedUnder) {
    try (KafkaProducer<String, String> producer =
        new KafkaProducer<>(
            kafka.producerConfig(), new StringSerializer(), new StringSerializer())) {
      long interval = TimeUnit.SECONDS.toNanos(1) / perSecond;
      for (int i = 0; i < records; i++) {
        String value = "{\"n\":" + i + "}";
        if (!key(i).startsWith("bad-") && produceTooLarge.getAndSet(false)) {
          tooLarge.add(key(i));
          value = "x".repeat(LARGE);
        }
        producedUnder[i] = fault;
        ProducerRecord<String, String> r = new ProducerRecord<>(topic, "acc-" + (i % 97), value);
        byKey.computeIfAbsent("acc-" + (i % 97), k -> new ArrayList<>()).add(key(i));
        r.headers().add(CourierHeaders.ID, key(i).getBytes(StandardCharsets.UTF_8));
        producer.send(r);
        LockSupport.parkNanos(interval); // steady input is the point
      }
      producer.flush();
    }
  }

  private static void awaitTopics(KafkaBroker kafka, List<String> topics) throws Exception {
    long deadline = System.nanoTime() + Duration.ofMinutes(2).toNanos();
    while (!kafka.admin().listTopics().names().get(30, TimeUnit.SECONDS).containsAll(topics)) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("the workers did not create the tiers " + topics);
      }
      LockSupport.parkNanos(Duration.ofMillis(100).toNanos()); // polling for the workers' start
    }
  }
}
