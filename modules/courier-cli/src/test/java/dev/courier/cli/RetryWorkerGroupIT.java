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
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Retry workers as they are deployed: several {@code courier retry-worker} processes from the
 * packaged jar in one group on a four-partition topic, a slow endpoint and steady input, while
 * workers join, leave by SIGTERM and are SIGKILLed. Nobody exits because of a rebalance, every
 * record reaches the endpoint, the DLT holds only the records the endpoint refuses, and records
 * handled twice are bounded by the kills: at most the one record in flight per killed worker.
 */
@CourierInfraTest
class RetryWorkerGroupIT {

  private static final Logger LOG = LoggerFactory.getLogger(RetryWorkerGroupIT.class);
  private static final Duration TIMEOUT = Duration.ofSeconds(120);
  private static final int RECORDS = 600;

  @Test
  void aGroupOfWorkersUnderChurnLosesNothingAndRepeatsOnlyWhatKillsInterrupted(
      KafkaBroker kafka, TestDatabase db) throws Exception {
    String topic = UniqueNames.topic("churn");
    String group = UniqueNames.group("churn");
    kafka.createTopic(topic, 4);
    try (RecordingEndpoint endpoint =
        RecordingEndpoint.start(
            Duration.ofMillis(40),
            (key, call) ->
                key.startsWith("bad-") ? 422 : key.startsWith("flaky-") && call == 1 ? 503 : 204)) {
      Path config = settings(kafka, topic, group, endpoint.url());
      List<WorkerProcess> workers = new ArrayList<>();
      ExecutorService producing = Executors.newSingleThreadExecutor();
      try {
        for (int i = 1; i <= 3; i++) {
          workers.add(start(i, config));
        }
        Future<?> input = producing.submit(() -> produce(kafka, topic));
        await().atMost(TIMEOUT).until(() -> endpoint.totalCalls() >= 100);
        workers.add(start(4, config)); // joins
        await().atMost(TIMEOUT).until(() -> endpoint.totalCalls() >= 200);
        WorkerProcess leaving = workers.get(0);
        assertThat(leaving.terminate(TIMEOUT)).isEqualTo(WorkerProcess.SIGTERM_EXIT_STATUS);
        assertThat(leaving.output()).contains("stopped cleanly");
        await().atMost(TIMEOUT).until(() -> endpoint.totalCalls() >= 300);
        assertThat(workers.get(1).kill()).isEqualTo(WorkerProcess.SIGKILL_EXIT_STATUS);
        await().atMost(TIMEOUT).until(() -> endpoint.totalCalls() >= 380);
        workers.add(start(5, config)); // joins
        await().atMost(TIMEOUT).until(() -> endpoint.totalCalls() >= 450);
        assertThat(workers.get(2).kill()).isEqualTo(WorkerProcess.SIGKILL_EXIT_STATUS);
        input.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);

        await()
            .atMost(TIMEOUT)
            .until(
                () ->
                    kafka.uncommitted(group, new RetryTopics(topic, group, 2).all().subList(0, 3))
                        == 0);
        assertThat(CommitHistory.of(kafka, group).backwardMoves())
            .as("no commit of the group takes a partition back")
            .isEmpty();
        List<WorkerProcess> survivors = workers.subList(3, 5);
        for (WorkerProcess w : survivors) {
          assertThat(w.isAlive()).as("no worker exits because of a rebalance").isTrue();
        }

        int kills = 2;
        long duplicates = 0;
        for (int i = 0; i < RECORDS; i++) {
          String key = key(i);
          int expected = key.startsWith("flaky-") ? 2 : 1;
          assertThat(endpoint.calls(key))
              .as("%s reached the endpoint", key)
              .isGreaterThanOrEqualTo(expected);
          duplicates += endpoint.calls(key) - expected;
        }
        LOG.info(
            "records {}, calls {}, duplicates {} after {} kills",
            RECORDS,
            endpoint.totalCalls(),
            duplicates,
            kills);
        assertThat(duplicates)
            .as("at most the record in flight per killed worker is repeated")
            .isLessThanOrEqualTo(kills);

        try (DltReplayer replayer = DltReplayer.create(kafka.clientSettings(), db.dataSource())) {
          List<DltRecord> dead =
              replayer.list(new RetryTopics(topic, group, 2).deadLetter(), DltFilter.all());
          assertThat(dead).extracting(DltRecord::reason).containsOnly("permanent");
          assertThat(dead)
              .extracting(d -> d.operationKey().orElseThrow())
              .as("the DLT holds exactly the refused records (a repeat may park one twice)")
              .allMatch(k -> k.startsWith("bad-"))
              .containsAll(
                  java.util.stream.IntStream.range(0, RECORDS)
                      .mapToObj(RetryWorkerGroupIT::key)
                      .filter(k -> k.startsWith("bad-"))
                      .toList());
        }
        for (WorkerProcess w : survivors) {
          assertThat(w.terminate(TIMEOUT)).isEqualTo(WorkerProcess.SIGTERM_EXIT_STATUS);
        }
      } finally {
        producing.shutdownNow();
        workers.forEach(WorkerProcess::close);
      }
    }
  }

  /**
   * A worker frozen in the middle of a run, past its session: the group gives its partition to
   * another worker, which calls the run's records. Thawed, the frozen worker gets the answer of the
   * call it was in, and must not make the run's other calls: they are the next owner's now, and
   * made after its calls they would undo the key's latest state. Its handler waits for its {@code
   * MembershipLease} (the group no longer lists it), and the run is cancelled when the consumer
   * learns it lost the partition.
   */
  @Test
  void aWorkerThawedAfterItsPartitionMovedMakesNoneOfTheCallsItWasHanded(KafkaBroker kafka)
      throws Exception {
    String topic = UniqueNames.topic("thawed");
    String group = UniqueNames.group("thawed");
    kafka.createTopic(topic, 1);
    int records = 10;
    try (RecordingEndpoint endpoint = RecordingEndpoint.start(Duration.ZERO, (key, call) -> 204);
        KafkaProducer<String, String> producer =
            new KafkaProducer<>(
                kafka.producerConfig(), new StringSerializer(), new StringSerializer())) {
      RecordingEndpoint.Hold held = endpoint.holdFirstCall("r-0");
      for (int i = 0; i < records; i++) {
        ProducerRecord<String, String> r = new ProducerRecord<>(topic, "k", "{\"n\":" + i + "}");
        r.headers().add(CourierHeaders.ID, ("r-" + i).getBytes(StandardCharsets.UTF_8));
        producer.send(r);
      }
      producer.flush();
      Path config = SettingsFile.write(retryWorker(kafka, topic, group, endpoint.url(), 300));
      try (WorkerProcess frozen = start(1, config)) {
        held.awaitReached(TIMEOUT); // its handler is in r-0's call, r-1..r-9 handed to it
        frozen.freeze();
        try (WorkerProcess next = start(2, config)) {
          await().atMost(TIMEOUT).until(() -> endpoint.calls("r-" + (records - 1)) == 1);
          held.release();
          frozen.thaw();
          // Rejoined: it learned it had lost the partition, after the calls it would have made.
          await().atMost(TIMEOUT).until(() -> kafka.members(group) == 2);
          assertThat(endpoint.calls("r-0")).as("the held call and the next owner's").isEqualTo(2);
          for (int i = 1; i < records; i++) {
            assertThat(endpoint.calls("r-" + i))
                .as("r-%d called by the next owner only", i)
                .isEqualTo(1);
          }
          assertThat(frozen.isAlive()).isTrue();
          assertThat(next.terminate(TIMEOUT)).isEqualTo(WorkerProcess.SIGTERM_EXIT_STATUS);
        }
        assertThat(frozen.terminate(TIMEOUT)).isEqualTo(WorkerProcess.SIGTERM_EXIT_STATUS);
      }
    }
  }

  private static String key(int i) {
    return (i % 20 == 7 ? "bad-" : i % 10 == 3 ? "flaky-" : "op-") + i;
  }

  /** Steady input: 40 records a second, keys spread over the partitions. */
  private static void produce(KafkaBroker kafka, String topic) {
    try (KafkaProducer<String, String> producer =
        new KafkaProducer<>(
            kafka.producerConfig(), new StringSerializer(), new StringSerializer())) {
      for (int i = 0; i < RECORDS; i++) {
        ProducerRecord<String, String> r =
            new ProducerRecord<>(topic, "acc-" + i, "{\"n\":" + i + "}");
        r.headers().add(CourierHeaders.ID, key(i).getBytes(StandardCharsets.UTF_8));
        producer.send(r);
        // Pacing is the point here: input arrives over time, as in production.
        LockSupport.parkNanos(Duration.ofMillis(25).toNanos());
      }
      producer.flush();
    }
  }

  static WorkerProcess start(int n, Path config) {
    WorkerProcess w =
        CourierProcess.jar(
            "worker-" + n, Map.of(), List.of("retry-worker", "--config", config.toString()));
    CourierProcess.awaitHealthy(CourierProcess.port(w));
    return w;
  }

  private static Path settings(KafkaBroker kafka, String topic, String group, String url) {
    Map<String, String> settings = retryWorker(kafka, topic, group, url, 300);
    // Commit after every record: a kill repeats at most the record in flight.
    settings.put("retry.commit.interval.ms", "0");
    return SettingsFile.write(settings);
  }

  /**
   * A {@code courier retry-worker} calling {@code url}: three attempts {@code backOffMs} apart, a
   * budget that does not hold them back, and a session a killed worker loses within 6 s.
   */
  static Map<String, String> retryWorker(
      KafkaBroker kafka, String topic, String group, String url, long backOffMs) {
    Map<String, String> settings = new LinkedHashMap<>();
    settings.put("bootstrap.servers", kafka.bootstrapServers());
    settings.put("retry.group.id", group);
    settings.put("retry.topic", topic);
    settings.put("retry.max.attempts", "3");
    settings.put("retry.backoff.type", "fixed");
    settings.put("retry.backoff.initial.ms", String.valueOf(backOffMs));
    settings.put("retry.backoff.max.ms", String.valueOf(backOffMs));
    settings.put("retry.budget.capacity", "1000");
    settings.put("retry.budget.refill.per.second", "1000");
    settings.put("retry.shutdown.timeout.ms", "5000");
    settings.put("retry.worker.http.port", "0");
    settings.put("retry.worker.target.url", url);
    // A killed worker's partitions move on after 6 s instead of 45.
    settings.put("kafka.session.timeout.ms", "6000");
    settings.put("kafka.heartbeat.interval.ms", "1000");
    return settings;
  }
}
