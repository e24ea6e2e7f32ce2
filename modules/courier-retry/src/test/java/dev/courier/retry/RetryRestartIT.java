package dev.courier.retry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.courier.core.CourierHeaders;
import dev.courier.testkit.CourierInfraTest;
import dev.courier.testkit.JvmWorker;
import dev.courier.testkit.KafkaBroker;
import dev.courier.testkit.Polling;
import dev.courier.testkit.TestDatabase;
import dev.courier.testkit.UniqueNames;
import dev.courier.testkit.WorkerProcess;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.Test;

/**
 * A worker killed while a record waits out its delay: the restarted worker runs it after its due
 * time.
 */
@CourierInfraTest
class RetryRestartIT {

  @Test
  void aDelaySurvivesAKilledWorker(KafkaBroker kafka, TestDatabase db) throws Exception {
    String topic = UniqueNames.topic("restart");
    String group = UniqueNames.group("restart");
    kafka.createTopic(topic, 1);
    CreditFixture f = new CreditFixture(kafka, db, group);
    JvmWorker worker =
        JvmWorker.of(RetryWorkerMain.class)
            .name("retry-worker")
            .args(
                kafka.bootstrapServers(), topic, group, db.jdbcUrl(), db.username(), db.password());
    Instant due;
    try (WorkerProcess first = worker.start()) {
      f.send(topic, "op-r", "acc-1:10", Map.of());
      ConsumerRecord<String, String> waiting =
          readTier(kafka, new RetryTopics(topic, group, 1).tier(1));
      due =
          Instant.ofEpochMilli(
              Long.parseLong(
                  CourierHeaders.text(waiting.headers(), CourierHeaders.DUE).orElseThrow()));
      assertThat(due).isAfter(Instant.now());
      assertThat(first.kill()).isEqualTo(WorkerProcess.SIGKILL_EXIT_STATUS);
    }
    try (WorkerProcess second = worker.start()) {
      Instant ranAt =
          await()
              .atMost(Duration.ofSeconds(90))
              .pollInterval(Duration.ofMillis(200))
              .until(() -> doneAt(db, "op-r"), at -> at != null);
      assertThat(ranAt).as("never early").isAfterOrEqualTo(due);
      assertThat(count(db, "worker_first_failure")).isEqualTo(1);
      assertThat(count(db, "worker_done")).isEqualTo(1);
    }
  }

  private static ConsumerRecord<String, String> readTier(KafkaBroker kafka, String tier) {
    try (KafkaConsumer<String, String> reader =
        new KafkaConsumer<>(
            kafka.consumerConfig(UniqueNames.group("reader")),
            new StringDeserializer(),
            new StringDeserializer())) {
      await().atMost(Duration.ofSeconds(60)).until(() -> !reader.partitionsFor(tier).isEmpty());
      reader.assign(List.of(new TopicPartition(tier, 0)));
      return Polling.pollUntil(reader, 1, Duration.ofSeconds(60)).get(0);
    }
  }

  private static Instant doneAt(TestDatabase db, String op) throws Exception {
    try (Connection c = db.connection();
        Statement s = c.createStatement()) {
      s.execute(
          "CREATE TABLE IF NOT EXISTS worker_done (op text PRIMARY KEY, at timestamptz NOT NULL)");
      try (ResultSet rs = s.executeQuery("SELECT at FROM worker_done WHERE op = '" + op + "'")) {
        return rs.next() ? rs.getTimestamp(1).toInstant() : null;
      }
    }
  }

  private static long count(TestDatabase db, String table) throws Exception {
    try (Connection c = db.connection();
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT count(*) FROM " + table)) {
      rs.next();
      return rs.getLong(1);
    }
  }
}
