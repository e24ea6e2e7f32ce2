package dev.courier.examples.credit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.courier.core.CourierHeaders;
import dev.courier.core.CrashPoint;
import dev.courier.core.CrashPoints;
import dev.courier.idempotency.IdempotentHandler;
import dev.courier.testkit.BackendMatrix;
import dev.courier.testkit.CourierInfraTest;
import dev.courier.testkit.JvmWorker;
import dev.courier.testkit.KafkaBroker;
import dev.courier.testkit.TestDatabase;
import dev.courier.testkit.UniqueNames;
import dev.courier.testkit.WorkerProcess;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The reference scenario: a job credits account 17 by 10, and the worker is killed with SIGKILL at
 * a process boundary, then restarted. Only the business total counts.
 */
@CourierInfraTest
class CreditCrashIT {

  private static final Duration TIMEOUT = Duration.ofSeconds(90);

  private final KafkaBroker kafka;
  private final TestDatabase db;
  private String topic;
  private String group;
  private String operationKey;

  CreditCrashIT(KafkaBroker kafka, TestDatabase db) {
    this.kafka = kafka;
    this.db = db;
  }

  @BeforeEach
  void oneCreditOfTen() throws Exception {
    try (Connection c = db.connection();
        Statement s = c.createStatement()) {
      s.execute(
          "CREATE TABLE IF NOT EXISTS accounts (id integer PRIMARY KEY, total numeric NOT NULL)");
      s.execute("INSERT INTO accounts VALUES (17, 0) ON CONFLICT (id) DO UPDATE SET total = 0");
    }
    topic = UniqueNames.topic("credits");
    group = UniqueNames.group("billing");
    operationKey = "credit-" + topic;
    kafka.createTopic(topic, 1);
    try (KafkaProducer<String, String> producer =
        new KafkaProducer<>(
            kafka.producerConfig(), new StringSerializer(), new StringSerializer())) {
      ProducerRecord<String, String> credit = new ProducerRecord<>(topic, "17", "17:10");
      credit.headers().add(CourierHeaders.ID, operationKey.getBytes(StandardCharsets.UTF_8));
      producer.send(credit).get(30, TimeUnit.SECONDS);
    }
  }

  @Test
  @BackendMatrix
  void guardedKilledAfterDbCommitBeforeOffsetCommitCreditsOnce(Admin admin) throws Exception {
    crashThenRestart("guarded", CrashPoints.AFTER_DB_COMMIT_BEFORE_OFFSET_COMMIT);

    assertThat(total()).isEqualByComparingTo("10");
    assertThat(keys()).isEqualTo(1);
    assertThat(committedOffset(admin)).isEqualTo(1);
  }

  @Test
  void unguardedKilledAfterDbCommitBeforeOffsetCommitCreditsTwice(Admin admin) throws Exception {
    crashThenRestart("unguarded", CrashPoints.AFTER_DB_COMMIT_BEFORE_OFFSET_COMMIT);

    assertThat(total())
        .as("the naive loop applies the redelivered credit again")
        .isEqualByComparingTo("20");
    assertThat(committedOffset(admin)).isEqualTo(1);
  }

  @Test
  void guardedKilledBeforeDbCommitCreditsOnceAfterRedelivery(Admin admin) throws Exception {
    WorkerProcess crashed = worker("guarded").crashAt(IdempotentHandler.BEFORE_DB_COMMIT).start();
    assertThat(crashed.killAtCrashPoint(TIMEOUT)).isEqualTo(WorkerProcess.SIGKILL_EXIT_STATUS);
    assertThat(total()).as("nothing committed before the kill").isEqualByComparingTo("0");
    assertThat(keys()).isZero();

    assertThat(worker("guarded").start().awaitExit(TIMEOUT)).isZero();

    assertThat(total()).isEqualByComparingTo("10");
    assertThat(keys()).isEqualTo(1);
    assertThat(committedOffset(admin)).isEqualTo(1);
  }

  private void crashThenRestart(String mode, CrashPoint point) throws Exception {
    WorkerProcess crashed = worker(mode).crashAt(point).start();
    assertThat(crashed.killAtCrashPoint(TIMEOUT)).isEqualTo(WorkerProcess.SIGKILL_EXIT_STATUS);
    assertThat(total()).as("the credit committed before the kill").isEqualByComparingTo("10");

    WorkerProcess restarted = worker(mode).start();
    assertThat(restarted.awaitExit(TIMEOUT)).isZero();
  }

  private JvmWorker worker(String mode) {
    return JvmWorker.of(CreditWorker.class)
        .args(
            mode,
            kafka.bootstrapServers(),
            db.jdbcUrl(),
            db.username(),
            db.password(),
            topic,
            group,
            "1");
  }

  private BigDecimal total() throws SQLException {
    try (Connection c = db.connection();
        ResultSet rs =
            c.createStatement().executeQuery("SELECT total FROM accounts WHERE id = 17")) {
      rs.next();
      return rs.getBigDecimal(1);
    }
  }

  /** Dedupe rows of this test's operation key (none until the first worker ran the migration). */
  private long keys() throws SQLException {
    try (Connection c = db.connection();
        ResultSet rs =
            c.createStatement()
                .executeQuery(
                    "SELECT count(*) FROM information_schema.tables"
                        + " WHERE table_name = 'courier_idempotency_keys'")) {
      rs.next();
      if (rs.getLong(1) == 0) {
        return 0;
      }
    }
    try (Connection c = db.connection();
        java.sql.PreparedStatement ps =
            c.prepareStatement(
                "SELECT count(*) FROM courier_idempotency_keys WHERE operation_key = ?")) {
      ps.setString(1, operationKey);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return rs.getLong(1);
      }
    }
  }

  private long committedOffset(Admin admin) throws Exception {
    OffsetAndMetadata offset =
        admin
            .listConsumerGroupOffsets(group)
            .partitionsToOffsetAndMetadata()
            .get(30, TimeUnit.SECONDS)
            .get(new TopicPartition(topic, 0));
    return offset == null ? -1 : offset.offset();
  }
}
