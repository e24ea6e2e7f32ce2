package dev.courier.outbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.courier.core.CourierHeaders;
import dev.courier.core.CrashPoints;
import dev.courier.testkit.BackendMatrix;
import dev.courier.testkit.CourierInfraTest;
import dev.courier.testkit.JvmWorker;
import dev.courier.testkit.KafkaBroker;
import dev.courier.testkit.TestDatabase;
import dev.courier.testkit.WorkerProcess;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;

/**
 * The relay in a child JVM, killed with SIGKILL at its boundaries, then restarted: nothing
 * committed is lost, a re-sent event keeps its id, and a receiver that deduplicates by that id
 * credits once.
 */
@CourierInfraTest
class OutboxCrashIT {

  private static final Duration TIMEOUT = Duration.ofSeconds(90);

  @Test
  @BackendMatrix
  void killedAfterKafkaAckBeforeOffsetCommitResendsWithTheSameId(KafkaBroker kafka, TestDatabase db)
      throws Exception {
    OutboxFixture fixture = new OutboxFixture(kafka, db);
    WorkerProcess relay =
        startRelay(fixture, true, CrashPoints.AFTER_KAFKA_SEND_BEFORE_SOURCE_OFFSET_COMMIT);
    OutboxEvent credit = writeCreditOfTen(db, "acc-17");
    relay.killAtCrashPoint(TIMEOUT);
    assertThat(OutboxFixture.read(kafka, fixture.topic("account"), 1, TIMEOUT)).hasSize(1);

    try (WorkerProcess restarted = startRelay(fixture, false, null)) {
      List<ConsumerRecord<String, String>> delivered =
          OutboxFixture.read(kafka, fixture.topic("account"), 2, TIMEOUT);
      assertThat(delivered).as("the acknowledged event is sent again after the restart").hasSize(2);
      assertThat(delivered)
          .extracting(r -> OutboxFixture.header(r, CourierHeaders.ID))
          .containsOnly(credit.eventId().toString());

      // The receiver check: credit 10 per delivered event, without and with deduplication.
      assertThat(unguardedTotal(delivered)).isEqualTo(20);
      assertThat(guardedTotal(db, delivered)).isEqualTo(10);
    }
  }

  @Test
  void killedBeforeKafkaSendDeliversAfterRestart(KafkaBroker kafka, TestDatabase db)
      throws Exception {
    OutboxFixture fixture = new OutboxFixture(kafka, db);
    WorkerProcess relay = startRelay(fixture, true, OutboxRelay.BEFORE_KAFKA_SEND);
    OutboxEvent credit = writeCreditOfTen(db, "acc-18");
    relay.killAtCrashPoint(TIMEOUT);
    assertThat(OutboxFixture.read(kafka, fixture.topic("account"), 1, Duration.ofSeconds(3)))
        .isEmpty();

    try (WorkerProcess restarted = startRelay(fixture, false, null)) {
      List<ConsumerRecord<String, String>> delivered =
          OutboxFixture.read(kafka, fixture.topic("account"), 1, TIMEOUT);
      assertThat(delivered).hasSize(1);
      assertThat(OutboxFixture.header(delivered.get(0), CourierHeaders.ID))
          .isEqualTo(credit.eventId().toString());
    }
  }

  private static WorkerProcess startRelay(
      OutboxFixture fixture, boolean armed, dev.courier.core.CrashPoint point) {
    JvmWorker worker = JvmWorker.of(RelayMain.class).args(fixture.args()).name("relay");
    if (armed) {
      worker.crashAt(point);
    }
    WorkerProcess process = worker.start();
    await().atMost(TIMEOUT).until(() -> process.output().contains(RelayMain.STREAMING));
    return process;
  }

  private static OutboxEvent writeCreditOfTen(TestDatabase db, String account) throws Exception {
    OutboxEvent credit =
        OutboxRelayIT.credit(account, 10).operationKey("credit-" + account).build();
    try (Connection c = db.connection()) {
      c.setAutoCommit(false);
      OutboxWriter.create().write(c, credit);
      c.commit();
    }
    return credit;
  }

  private static int unguardedTotal(List<ConsumerRecord<String, String>> delivered) {
    return delivered.size() * 10;
  }

  /**
   * A receiver that records each event id before it credits, in the credit's transaction (what
   * IdempotentHandler does; the lab's outbox step runs this scenario with it): the re-sent event
   * keeps its id, so it credits once.
   */
  private static int guardedTotal(TestDatabase db, List<ConsumerRecord<String, String>> delivered)
      throws Exception {
    try (Connection c = db.connection();
        Statement s = c.createStatement()) {
      s.execute(
          "CREATE TABLE IF NOT EXISTS receiver_accounts (id text PRIMARY KEY, total integer NOT NULL)");
      s.execute("CREATE TABLE IF NOT EXISTS receiver_events (event_id text PRIMARY KEY)");
      s.execute(
          "INSERT INTO receiver_accounts VALUES ('acc-17', 0) ON CONFLICT (id) DO UPDATE SET total = 0");
    }
    for (ConsumerRecord<String, String> record : delivered) {
      try (Connection c = db.connection()) {
        c.setAutoCommit(false);
        try (PreparedStatement seen =
                c.prepareStatement(
                    "INSERT INTO receiver_events VALUES (?) ON CONFLICT DO NOTHING");
            PreparedStatement credit =
                c.prepareStatement(
                    "UPDATE receiver_accounts SET total = total + 10 WHERE id = ?")) {
          seen.setString(1, OutboxFixture.header(record, CourierHeaders.ID));
          if (seen.executeUpdate() == 1) {
            credit.setString(1, record.key());
            credit.executeUpdate();
          }
        }
        c.commit();
      }
    }
    try (Connection c = db.connection();
        ResultSet rs =
            c.createStatement()
                .executeQuery("SELECT total FROM receiver_accounts WHERE id = 'acc-17'")) {
      rs.next();
      return rs.getInt(1);
    }
  }
}
