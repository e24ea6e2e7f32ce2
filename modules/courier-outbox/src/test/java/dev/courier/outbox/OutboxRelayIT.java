package dev.courier.outbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.courier.core.CourierHeaders;
import dev.courier.testkit.BackendMatrix;
import dev.courier.testkit.CourierInfraTest;
import dev.courier.testkit.KafkaBroker;
import dev.courier.testkit.TestDatabase;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;

/** The relay in this JVM against the testkit's broker and database. */
@CourierInfraTest
@BackendMatrix
class OutboxRelayIT {

  private static final Duration TIMEOUT = Duration.ofSeconds(60);

  @Test
  void committedEventsArriveInOrderWithTheirIdsAndRolledBackOnesNever(
      KafkaBroker kafka, TestDatabase db) throws Exception {
    OutboxFixture fixture = new OutboxFixture(kafka, db);
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    try (OutboxRelay relay = OutboxRelay.create(fixture.settings, registry, Clock.systemUTC())) {
      assertThat(relay.awaitStreaming(TIMEOUT)).isTrue();
      try (Connection c = db.connection();
          Statement s = c.createStatement()) {
        s.execute(
            "CREATE TABLE IF NOT EXISTS accounts (id text PRIMARY KEY, balance integer NOT NULL)");
      }
      OutboxWriter writer = OutboxWriter.create();
      List<UUID> committed = new java.util.ArrayList<>();
      try (Connection c = db.connection()) {
        c.setAutoCommit(false);
        try (PreparedStatement ps =
            c.prepareStatement("INSERT INTO accounts VALUES ('acc-1', 0)")) {
          ps.executeUpdate();
        }
        for (int i = 1; i <= 3; i++) {
          OutboxEvent event =
              credit("acc-1", i).header("traceparent", "00-trace-" + i + "-01").build();
          writer.write(c, event);
          committed.add(event.eventId());
        }
        c.commit();

        writer.write(c, credit("acc-1", 99).build());
        c.rollback();

        OutboxEvent other =
            credit("acc-2", 1).deadline(Instant.parse("2030-01-01T00:00:00Z")).build();
        writer.write(c, other);
        c.commit();
        committed.add(other.eventId());
      }

      List<ConsumerRecord<String, String>> records =
          OutboxFixture.read(kafka, fixture.topic("account"), 4, TIMEOUT);
      assertThat(records).hasSize(4);
      List<ConsumerRecord<String, String>> acc1 =
          records.stream().filter(r -> r.key().equals("acc-1")).toList();
      assertThat(acc1)
          .extracting(ConsumerRecord::value)
          .containsExactly("{\"amount\":1}", "{\"amount\":2}", "{\"amount\":3}");
      assertThat(records)
          .extracting(r -> OutboxFixture.header(r, CourierHeaders.ID))
          .containsExactlyInAnyOrderElementsOf(committed.stream().map(UUID::toString).toList());
      assertThat(acc1)
          .extracting(r -> OutboxFixture.header(r, "traceparent"))
          .containsExactly("00-trace-1-01", "00-trace-2-01", "00-trace-3-01");
      assertThat(OutboxFixture.header(acc1.get(0), "type")).isEqualTo("CreditRequested");
      assertThat(OutboxFixture.header(acc1.get(0), "content-type")).isEqualTo(OutboxEvent.JSON);
      ConsumerRecord<String, String> acc2 =
          records.stream().filter(r -> r.key().equals("acc-2")).findFirst().orElseThrow();
      assertThat(OutboxFixture.header(acc2, CourierHeaders.DEADLINE))
          .startsWith("2030-01-01T00:00");
      // Nothing of the rolled-back transaction, and the table stays empty (remove-after-insert).
      assertThat(OutboxFixture.read(kafka, fixture.topic("account"), 5, Duration.ofSeconds(3)))
          .hasSize(4);
      assertThat(count(db, "SELECT count(*) FROM courier_outbox")).isZero();

      await()
          .atMost(TIMEOUT)
          .until(() -> registry.get("courier.outbox.events.relayed").counter().count() == 4);
      assertThat(registry.get("courier.outbox.commit.to.ack").timer().count()).isEqualTo(4);
      // One start, timed from its first check to its first batch relayed.
      assertThat(registry.get("courier.outbox.start").timer().count()).isEqualTo(1);
      assertThat(relay.healthy()).isTrue();
    }
  }

  /**
   * The relay reads inserts (events) and updates (heartbeats) only: a publication it makes does not
   * publish deletes, and one left by an older relay that does is narrowed at start, so PostgreSQL
   * no longer decodes the delete of every row remove-after-insert takes away.
   */
  @Test
  void thePublicationPublishesInsertsAndUpdatesOnlyEvenWhenAnOlderOneDidMore(
      KafkaBroker kafka, TestDatabase db) throws Exception {
    OutboxFixture fixture =
        new OutboxFixture(kafka, db).with(OutboxRelayConfig.HEARTBEAT_INTERVAL_MS, "200");
    String publication = fixture.settings.get(OutboxRelayConfig.PUBLICATION_NAME);
    OutboxSchema.migrate(db.dataSource());
    try (Connection c = db.connection();
        Statement s = c.createStatement()) {
      // As an older relay made it: every operation.
      s.execute(
          "CREATE PUBLICATION "
              + publication
              + " FOR TABLE courier_outbox, courier_outbox_heartbeat");
    }
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    try (OutboxRelay relay = OutboxRelay.create(fixture.settings, registry, Clock.systemUTC())) {
      assertThat(relay.awaitStreaming(TIMEOUT)).isTrue();
      assertThat(
              count(
                  db,
                  "SELECT count(*) FROM pg_publication WHERE pubname = '"
                      + publication
                      + "' AND pubinsert AND pubupdate AND NOT pubdelete AND NOT pubtruncate"))
          .isEqualTo(1);
      try (Connection c = db.connection()) {
        c.setAutoCommit(false);
        OutboxWriter.create().write(c, credit("acc-3", 5).build());
        c.commit();
      }
      assertThat(OutboxFixture.read(kafka, fixture.topic("account"), 1, TIMEOUT))
          .extracting(ConsumerRecord::value)
          .containsExactly("{\"amount\":5}");
      // Heartbeats are updates of their row: they still move the slot while the outbox is idle.
      String slot = fixture.settings.get(OutboxRelayConfig.SLOT_NAME);
      long before = confirmedFlush(db, slot);
      await().atMost(TIMEOUT).until(() -> confirmedFlush(db, slot) > before);
    }
  }

  private static long confirmedFlush(TestDatabase db, String slot) throws Exception {
    return count(
        db,
        "SELECT coalesce(confirmed_flush_lsn - '0/0', 0)::bigint FROM pg_replication_slots"
            + " WHERE slot_name = '"
            + slot
            + "'");
  }

  @Test
  void invalidRowIsDeadLetteredWithItsReasonAndTheRelayGoesOn(KafkaBroker kafka, TestDatabase db)
      throws Exception {
    OutboxFixture fixture =
        new OutboxFixture(kafka, db).with(OutboxRelayConfig.INVALID_ROW_POLICY, "dead-letter");
    try (OutboxRelay relay =
        OutboxRelay.create(fixture.settings, new SimpleMeterRegistry(), Clock.systemUTC())) {
      assertThat(relay.awaitStreaming(TIMEOUT)).isTrue();
      UUID bad = UUID.randomUUID();
      try (Connection c = db.connection();
          PreparedStatement ps =
              c.prepareStatement(
                  "INSERT INTO courier_outbox (id, aggregatetype, aggregateid, type, payload, content_type)"
                      + " VALUES (?, 'account', NULL, 'CreditRequested', ?, 'application/json')")) {
        ps.setObject(1, bad);
        ps.setBytes(2, "{\"amount\":5}".getBytes());
        ps.executeUpdate();
      }
      try (Connection c = db.connection()) {
        c.setAutoCommit(false);
        OutboxWriter.create().write(c, credit("acc-9", 7).build());
        c.commit();
      }
      List<ConsumerRecord<String, String>> dead =
          OutboxFixture.read(kafka, fixture.prefix + ".outbox.dlt", 1, TIMEOUT);
      assertThat(dead).hasSize(1);
      assertThat(OutboxFixture.header(dead.get(0), CourierHeaders.ID)).isEqualTo(bad.toString());
      assertThat(OutboxFixture.header(dead.get(0), "courier.reason"))
          .contains("aggregateid is null");
      assertThat(dead.get(0).value())
          .contains("\"aggregateType\":\"account\"")
          .contains("\"eventId\":\"" + bad + "\"")
          .contains("\"size\":12")
          .contains("\"payload\":");
      assertThat(OutboxFixture.read(kafka, fixture.topic("account"), 1, TIMEOUT))
          .extracting(ConsumerRecord::key)
          .containsExactly("acc-9");
      assertThat(relay.healthy()).isTrue();
    }
  }

  @Test
  void userWithoutReplicationRightsIsRefusedAtStartNamingTheFix(KafkaBroker kafka, TestDatabase db)
      throws Exception {
    try (Connection c = db.connection();
        Statement s = c.createStatement()) {
      s.execute("DROP ROLE IF EXISTS plain_app");
      s.execute("CREATE ROLE plain_app LOGIN PASSWORD 'pw'");
    }
    OutboxFixture fixture =
        new OutboxFixture(kafka, db)
            .with(OutboxRelayConfig.DATABASE_USER, "plain_app")
            .with(OutboxRelayConfig.DATABASE_PASSWORD, "pw");
    assertThatThrownBy(() -> OutboxRelay.create(fixture.settings))
        .isInstanceOf(org.apache.kafka.common.config.ConfigException.class)
        .hasMessageContaining("database.user")
        .hasMessageContaining("user plain_app may not stream changes")
        .hasMessageContaining("ALTER ROLE plain_app WITH REPLICATION");
  }

  static OutboxEvent.Builder credit(String account, int amount) {
    return OutboxEvent.builder()
        .aggregate("account", account)
        .eventType("CreditRequested")
        .json("{\"amount\":" + amount + "}");
  }

  static long count(TestDatabase db, String sql) throws Exception {
    try (Connection c = db.connection();
        var rs = c.createStatement().executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    }
  }
}
