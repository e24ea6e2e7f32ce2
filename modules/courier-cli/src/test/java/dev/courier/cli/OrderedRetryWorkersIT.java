package dev.courier.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.courier.core.CourierHeaders;
import dev.courier.retry.DltFilter;
import dev.courier.retry.DltRecord;
import dev.courier.retry.DltReplayer;
import dev.courier.retry.RetryTopics;
import dev.courier.testkit.CommitHistory;
import dev.courier.testkit.CourierInfraTest;
import dev.courier.testkit.KafkaBroker;
import dev.courier.testkit.KeyOrderCheck;
import dev.courier.testkit.RecordingEndpoint;
import dev.courier.testkit.SettingsFile;
import dev.courier.testkit.TestDatabase;
import dev.courier.testkit.UniqueNames;
import dev.courier.testkit.WorkerProcess;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Collectors;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code courier retry-worker} processes with {@code retry.ordering=key}: the short, seeded version
 * of the ordering fault run (the long one is {@code WorkerGroupFaultRun ordered}), and a worker
 * SIGKILLed while a key waits behind its record at a tier.
 */
@CourierInfraTest
class OrderedRetryWorkersIT {

  private static final Logger LOG = LoggerFactory.getLogger(OrderedRetryWorkersIT.class);
  private static final Duration TIMEOUT = Duration.ofSeconds(120);
  private static final int RECORDS = 400;
  private static final int KEYS = 31;
  private static final long SEED = 7;

  /**
   * bad-: refused at once (to the DLT from the main topic; nothing waits behind it); doomed-: fails
   * once, then is refused (its key waits behind it, then follows it); flaky-: fails once; any call
   * fails transiently with probability 0.05 (seeded).
   */
  private static int status(String key, int call) {
    if (key.startsWith("bad-")) {
      return 422;
    }
    if (key.startsWith("doomed-")) {
      return call == 1 ? 503 : 422;
    }
    if (key.startsWith("flaky-") && call == 1) {
      return 503;
    }
    long mixed = SEED * 0x9E3779B97F4A7C15L + key.hashCode() * 0xC2B2AE3D27D4EB4FL + call;
    return new SplittableRandom(mixed).nextDouble() < 0.05 ? 503 : 204;
  }

  private static String key(int i) {
    return (i % 25 == 7 ? "bad-" : i % 25 == 13 ? "doomed-" : i % 7 == 3 ? "flaky-" : "op-") + i;
  }

  @Test
  void aGroupUnderChurnKeepsEachKeysOrderLosesNothingAndParksWhatWaitedBehindADeadLetter(
      KafkaBroker kafka, TestDatabase db) throws Exception {
    String topic = UniqueNames.topic("ordered");
    String group = UniqueNames.group("ordered");
    kafka.createTopic(topic, 4);
    Map<String, List<String>> byKey = new LinkedHashMap<>();
    for (int i = 0; i < RECORDS; i++) {
      byKey.computeIfAbsent("acc-" + (i % KEYS), k -> new ArrayList<>()).add(key(i));
    }
    try (RecordingEndpoint endpoint =
        RecordingEndpoint.start(Duration.ofMillis(20), OrderedRetryWorkersIT::status)) {
      Path config = settings(kafka, topic, group, endpoint.url(), 300);
      List<WorkerProcess> workers = new ArrayList<>();
      ExecutorService producing = Executors.newSingleThreadExecutor();
      int kills = 0;
      try {
        for (int i = 1; i <= 3; i++) {
          workers.add(RetryWorkerGroupIT.start(i, config));
        }
        Future<?> input = producing.submit(() -> produce(kafka, topic));
        await().atMost(TIMEOUT).until(() -> endpoint.totalCalls() >= 80);
        workers.add(RetryWorkerGroupIT.start(4, config)); // joins
        await().atMost(TIMEOUT).until(() -> endpoint.totalCalls() >= 160);
        assertThat(workers.get(0).terminate(TIMEOUT)).isEqualTo(WorkerProcess.SIGTERM_EXIT_STATUS);
        await().atMost(TIMEOUT).until(() -> endpoint.totalCalls() >= 240);
        assertThat(workers.get(1).kill()).isEqualTo(WorkerProcess.SIGKILL_EXIT_STATUS);
        kills++;
        workers.add(RetryWorkerGroupIT.start(5, config)); // joins
        await().atMost(TIMEOUT).until(() -> endpoint.totalCalls() >= 320);
        assertThat(workers.get(2).kill()).isEqualTo(WorkerProcess.SIGKILL_EXIT_STATUS);
        kills++;
        input.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
        RetryTopics ladder = new RetryTopics(topic, group, 2);
        await()
            .atMost(TIMEOUT)
            .until(
                () ->
                    kafka.uncommitted(group, ladder.all().subList(0, 3)) == 0
                        && settled(endpoint, db, kafka, ladder));

        try (DltReplayer replayer = DltReplayer.create(kafka.clientSettings(), db.dataSource())) {
          List<DltRecord> dead = replayer.list(ladder.deadLetter(), DltFilter.all());
          Set<String> deadKeys =
              dead.stream().map(d -> d.operationKey().orElseThrow()).collect(Collectors.toSet());
          Set<String> deadAt =
              dead.stream()
                  .map(
                      d ->
                          d.originalTopic()
                              + "-"
                              + d.originalPartition()
                              + "@"
                              + d.originalOffset())
                  .collect(Collectors.toSet());
          long lost = 0;
          for (int i = 0; i < RECORDS; i++) {
            String k = key(i);
            if (endpoint.successes(k) == 0 && !deadKeys.contains(k)) {
              lost++;
              LOG.error("{} neither done nor in the DLT", k);
            }
          }
          KeyOrderCheck.Result order =
              KeyOrderCheck.check(
                  endpoint.log(),
                  byKey,
                  3,
                  dead.stream().map(d -> d.operationKey().orElseThrow()).toList());
          Map<String, Long> reasons =
              dead.stream()
                  .collect(Collectors.groupingBy(DltRecord::reason, Collectors.counting()));
          LOG.info(
              "records {}, calls {}, repeated successes {}, lost {}, violations of first handling"
                  + " {}, of final state {}, of parking {}, parked after a failed repeat {}, DLT {},"
                  + " SIGKILLs {}",
              RECORDS,
              endpoint.totalCalls(),
              order.repeatedSuccesses(),
              lost,
              order.firstHandling().size(),
              order.finalState().size(),
              order.parking().size(),
              order.parkedAfterRepeat(),
              reasons,
              kills);
          if (!order.violations().isEmpty()) {
            explain(order.violations(), byKey, endpoint.log(), dead);
          }
          assertThat(order.firstHandling())
              .as("no record first handled before its key's earlier ones are resolved")
              .isEmpty();
          assertThat(order.finalState())
              .as("each record's last success in its key's order")
              .isEmpty();
          assertThat(order.parking())
              .as("never parked after its last handling succeeded, nor parked twice")
              .isEmpty();
          assertThat(CommitHistory.of(kafka, group).backwardMoves())
              .as("no commit of the group takes a partition back")
              .isEmpty();
          assertThat(lost).isZero();
          assertThat(deadKeys)
              .as("every refused record is in the DLT")
              .containsAll(
                  byKey.values().stream()
                      .flatMap(List::stream)
                      .filter(k -> k.startsWith("bad-") || k.startsWith("doomed-"))
                      .toList());
          assertThat(dead)
              .as("only refusals, exhausted retries and what waited behind them")
              .allSatisfy(
                  d -> {
                    assertThat(d.reason())
                        .isIn("permanent", "attempts-exhausted", "waiting-behind");
                    if (d.reason().equals("waiting-behind")) {
                      assertThat(d.blockedBy()).get().isIn(deadAt);
                    }
                  });
          assertThat(reasons).containsKey("waiting-behind");
        }
        for (WorkerProcess w : workers.subList(3, 5)) {
          assertThat(w.isAlive()).as("no worker exits because of a rebalance").isTrue();
          assertThat(w.terminate(TIMEOUT)).isEqualTo(WorkerProcess.SIGTERM_EXIT_STATUS);
        }
      } finally {
        producing.shutdownNow();
        workers.forEach(WorkerProcess::close);
      }
    }
  }

  /**
   * For each key named in a violation: every call of its records in the endpoint's order and its
   * letters, so that a failed run says what happened without the workers' logs.
   */
  private static void explain(
      List<String> violations,
      Map<String, List<String>> byKey,
      List<RecordingEndpoint.Call> log,
      List<DltRecord> dead) {
    byKey.forEach(
        (key, records) -> {
          if (records.stream().noneMatch(r -> violations.stream().anyMatch(v -> v.contains(r)))) {
            return;
          }
          LOG.error("{}: records {}", key, records);
          LOG.error(
              "{}: calls {}",
              key,
              log.stream()
                  .filter(c -> records.contains(c.key()))
                  .map(c -> c.key() + "#" + c.call() + "=" + c.status())
                  .toList());
          dead.stream()
              .filter(d -> records.contains(d.operationKey().orElse("?")))
              .forEach(
                  d ->
                      LOG.error(
                          "{}: letter {} {} from {} at {}, blocked by {}",
                          key,
                          d.operationKey().orElse("?"),
                          d.reason(),
                          d.originalTopic()
                              + "-"
                              + d.originalPartition()
                              + "@"
                              + d.originalOffset(),
                          d.coordinates(),
                          d.blockedBy().orElse("-")));
        });
  }

  /** Every record produced so far is done or in the DLT. */
  private static boolean settled(
      RecordingEndpoint endpoint, TestDatabase db, KafkaBroker kafka, RetryTopics ladder) {
    try (DltReplayer replayer = DltReplayer.create(kafka.clientSettings(), db.dataSource())) {
      Set<String> dead =
          replayer.list(ladder.deadLetter(), DltFilter.all()).stream()
              .map(d -> d.operationKey().orElse("?"))
              .collect(Collectors.toSet());
      for (int i = 0; i < RECORDS; i++) {
        if (endpoint.successes(key(i)) == 0 && !dead.contains(key(i))) {
          return false;
        }
      }
      return true;
    }
  }

  @Test
  void whenTheWorkerOfAWaitingKeyIsKilledTheNextOwnerReleasesTheKeyInOrder(
      KafkaBroker kafka, TestDatabase db) throws Exception {
    String topic = UniqueNames.topic("handover");
    String group = UniqueNames.group("handover");
    kafka.createTopic(topic, 1);
    try (RecordingEndpoint endpoint =
        RecordingEndpoint.start(
            Duration.ofMillis(5), (key, call) -> key.equals("x1") && call == 1 ? 503 : 204)) {
      // x1 waits 4 s at its tier: long enough for its worker to be killed while x2, x3 wait.
      Path config = settings(kafka, topic, group, endpoint.url(), 4_000);
      WorkerProcess first = RetryWorkerGroupIT.start(1, config);
      WorkerProcess next = null;
      try {
        try (KafkaProducer<String, String> producer =
            new KafkaProducer<>(
                kafka.producerConfig(), new StringSerializer(), new StringSerializer())) {
          for (String[] kv :
              List.of(
                  new String[] {"X", "x1"},
                  new String[] {"X", "x2"},
                  new String[] {"Y", "y1"},
                  new String[] {"X", "x3"},
                  new String[] {"Y", "y2"})) {
            ProducerRecord<String, String> r = new ProducerRecord<>(topic, kv[0], kv[1]);
            r.headers().add(CourierHeaders.ID, kv[1].getBytes(StandardCharsets.UTF_8));
            producer.send(r).get(30, TimeUnit.SECONDS);
          }
        }
        await().atMost(TIMEOUT).until(() -> endpoint.successes("y2") == 1);
        // Everything read so far is committed: x2 and x3 wait in the blocked keys' topic only.
        await().atMost(TIMEOUT).until(() -> kafka.uncommitted(group, List.of(topic)) == 0);
        assertThat(endpoint.calls("x2")).isZero();
        assertThat(first.kill()).isEqualTo(WorkerProcess.SIGKILL_EXIT_STATUS);

        next = RetryWorkerGroupIT.start(2, config);
        await().atMost(TIMEOUT).until(() -> endpoint.successes("x3") == 1);
        KeyOrderCheck.Result order =
            KeyOrderCheck.check(endpoint.log(), Map.of("X", List.of("x1", "x2", "x3")), 3);
        assertThat(order.violations()).as("log %s", endpoint.log()).isEmpty();
        assertThat(endpoint.calls("x2")).isEqualTo(1);
        assertThat(endpoint.calls("x3")).isEqualTo(1);
        assertThat(endpoint.calls("y1")).as("not repeated by the next owner").isEqualTo(1);
        assertThat(next.terminate(TIMEOUT)).isEqualTo(WorkerProcess.SIGTERM_EXIT_STATUS);
      } finally {
        first.close();
        if (next != null) {
          next.close();
        }
      }
    }
  }

  /** Steady input, 80 records a second, 31 keys over four partitions. */
  private static void produce(KafkaBroker kafka, String topic) {
    try (KafkaProducer<String, String> producer =
        new KafkaProducer<>(
            kafka.producerConfig(), new StringSerializer(), new StringSerializer())) {
      for (int i = 0; i < RECORDS; i++) {
        ProducerRecord<String, String> r =
            new ProducerRecord<>(topic, "acc-" + (i % KEYS), "{\"n\":" + i + "}");
        r.headers().add(CourierHeaders.ID, key(i).getBytes(StandardCharsets.UTF_8));
        producer.send(r);
        // Pacing is the point here: input arrives over time, as in production.
        LockSupport.parkNanos(Duration.ofMillis(12).toNanos());
      }
      producer.flush();
    }
  }

  private static Path settings(
      KafkaBroker kafka, String topic, String group, String url, long backOffMs) {
    Map<String, String> settings =
        RetryWorkerGroupIT.retryWorker(kafka, topic, group, url, backOffMs);
    settings.put("retry.ordering", "key");
    return SettingsFile.write(settings);
  }
}
