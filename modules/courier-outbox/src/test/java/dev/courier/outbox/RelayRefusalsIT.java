package dev.courier.outbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.courier.core.CourierHeaders;
import dev.courier.testkit.CourierInfraTest;
import dev.courier.testkit.KafkaBroker;
import dev.courier.testkit.TestDatabase;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.config.ConfigResource;
import org.junit.jupiter.api.Test;

/**
 * Rows Kafka will not take, a slot that is not the one the stored position came from, and an offset
 * topic that would lose the position.
 */
@CourierInfraTest
class RelayRefusalsIT {

  private static final Duration TIMEOUT = Duration.ofSeconds(60);

  @Test
  void aPayloadOverMaxRequestSizeIsDeadLetteredAsAnEnvelopeAndTheRelayGoesOn(
      KafkaBroker kafka, TestDatabase db) throws Exception {
    OutboxFixture fixture =
        new OutboxFixture(kafka, db).with(OutboxRelayConfig.INVALID_ROW_POLICY, "dead-letter");
    try (OutboxRelay relay = start(fixture)) {
      OutboxEvent huge =
          OutboxRelayIT.credit("acc-1", 1)
              .json("{\"pad\":\"" + "x".repeat(2_000_000) + "\"}")
              .build();
      write(db, huge, OutboxRelayIT.credit("acc-1", 2).build());
      List<ConsumerRecord<String, String>> dead =
          OutboxFixture.read(kafka, fixture.prefix + ".outbox.dlt", 1, TIMEOUT);
      assertThat(dead).hasSize(1);
      assertThat(dead.get(0).value())
          .contains("\"eventId\":\"" + huge.eventId() + "\"")
          .contains("\"aggregateType\":\"account\"")
          .contains("\"type\":\"CreditRequested\"")
          .contains("\"size\":2000010")
          .contains("RecordTooLargeException")
          .contains("\"payloadOmitted\"")
          .doesNotContain("\"payload\":");
      assertThat(dead.get(0).value().length()).isLessThan(2_000);
      assertThat(OutboxFixture.header(dead.get(0), CourierHeaders.REASON))
          .contains("RecordTooLargeException");
      assertThat(OutboxFixture.read(kafka, fixture.topic("account"), 1, TIMEOUT))
          .extracting(ConsumerRecord::value)
          .containsExactly("{\"amount\":2}");
      assertThat(relay.health().ready()).isTrue();
    }
  }

  @Test
  void anAggregateTypeThatIsNoTopicNameIsDeadLetteredAndTheRelayGoesOn(
      KafkaBroker kafka, TestDatabase db) throws Exception {
    OutboxFixture fixture =
        new OutboxFixture(kafka, db).with(OutboxRelayConfig.INVALID_ROW_POLICY, "dead-letter");
    try (OutboxRelay relay = start(fixture)) {
      UUID bad = insertRaw(db, "bad type!", "acc-2");
      write(db, OutboxRelayIT.credit("acc-2", 3).build());
      List<ConsumerRecord<String, String>> dead =
          OutboxFixture.read(kafka, fixture.prefix + ".outbox.dlt", 1, TIMEOUT);
      assertThat(dead).hasSize(1);
      assertThat(OutboxFixture.header(dead.get(0), CourierHeaders.ID)).isEqualTo(bad.toString());
      assertThat(dead.get(0).value())
          .contains("\"aggregateType\":\"bad type!\"")
          .contains("InvalidTopicException")
          .contains("\"payload\":");
      assertThat(OutboxFixture.read(kafka, fixture.topic("account"), 1, TIMEOUT)).hasSize(1);
      assertThat(relay.health().ready()).isTrue();
    }
  }

  @Test
  void underTheFailPolicyARefusedRowStopsTheRelayBeforeAnythingAfterItAndASkipPassesIt(
      KafkaBroker kafka, TestDatabase db) throws Exception {
    OutboxFixture fixture = new OutboxFixture(kafka, db);
    OutboxEvent huge =
        OutboxRelayIT.credit("acc-3", 2)
            .json("{\"pad\":\"" + "x".repeat(2_000_000) + "\"}")
            .build();
    assertThat(stopsAtTheSecondOfFour(fixture, db, "acc-3", huge))
        .hasMessageContaining("outbox.invalid.row.policy=fail")
        .hasMessageContaining("courier outbox skip " + huge.eventId());
    // Nothing after the refused row reached Kafka: once it is dealt with, the row comes first.
    assertThat(endOffset(kafka, fixture.topic("account"))).isEqualTo(1);

    OutboxSkips.Skip skip =
        OutboxSkips.skip(fixture.settings, huge.eventId(), "ops", "over every limit, ticket 42");
    assertThat(OutboxSkips.list(fixture.settings)).containsExactly(skip);
    try (OutboxRelay relay = start(fixture)) {
      List<ConsumerRecord<String, String>> dead =
          OutboxFixture.read(kafka, fixture.prefix + ".outbox.dlt", 1, TIMEOUT);
      assertThat(dead).hasSize(1);
      assertThat(OutboxFixture.header(dead.get(0), CourierHeaders.ID))
          .isEqualTo(huge.eventId().toString());
      assertThat(OutboxFixture.header(dead.get(0), CourierHeaders.REASON))
          .startsWith("skipped by ops at ")
          .endsWith(": over every limit, ticket 42");
      assertThat(values(OutboxFixture.read(kafka, fixture.topic("account"), 3, TIMEOUT)))
          .containsExactly("{\"amount\":1}", "{\"amount\":3}", "{\"amount\":4}");
      assertThat(relay.health().ready()).isTrue();
    }
  }

  @Test
  void underTheFailPolicyARecordOverItsTopicsLimitStopsTheRelayBeforeAnythingAfterIt(
      KafkaBroker kafka, TestDatabase db) throws Exception {
    OutboxFixture fixture = new OutboxFixture(kafka, db);
    // Below the producer's max.request.size: only the broker would refuse it, after the rest.
    kafka.createTopic(fixture.topic("account"), 1, Map.of("max.message.bytes", "100000"));
    OutboxEvent big =
        OutboxRelayIT.credit("acc-5", 2).json("{\"pad\":\"" + "x".repeat(200_000) + "\"}").build();
    assertThat(stopsAtTheSecondOfFour(fixture, db, "acc-5", big))
        .hasMessageContaining("max.message.bytes (100000)");
    assertThat(endOffset(kafka, fixture.topic("account"))).isEqualTo(1);
  }

  /**
   * Writes amounts 1 to 4 in one transaction, {@code refused} second and the fourth of another key,
   * under {@code fail}: the relay must stop naming the refused row, and is closed.
   */
  private static Throwable stopsAtTheSecondOfFour(
      OutboxFixture fixture, TestDatabase db, String key, OutboxEvent refused) throws Exception {
    try (OutboxRelay relay = start(fixture)) {
      write(
          db,
          OutboxRelayIT.credit(key, 1).build(),
          refused,
          OutboxRelayIT.credit(key, 3).build(),
          OutboxRelayIT.credit(key + "-other", 4).build());
      await().atMost(TIMEOUT).until(() -> relay.failure() != null);
      assertThat(relay.failure())
          .isInstanceOf(RelayFault.class)
          .hasMessageContaining(refused.eventId().toString());
      assertThat(relay.health().live()).isFalse();
      assertThat(relay.health().reason()).contains(refused.eventId().toString());
      return relay.failure();
    }
  }

  private static long endOffset(KafkaBroker kafka, String topic) throws Exception {
    TopicPartition tp = new TopicPartition(topic, 0);
    return kafka
        .admin()
        .listOffsets(Map.of(tp, OffsetSpec.latest()))
        .partitionResult(tp)
        .get(30, TimeUnit.SECONDS)
        .offset();
  }

  @Test
  void aDroppedOrRecreatedSlotIsRefusedUnlessTheGapIsAccepted(KafkaBroker kafka, TestDatabase db)
      throws Exception {
    OutboxFixture fixture = new OutboxFixture(kafka, db);
    String slot = fixture.settings.get(OutboxRelayConfig.SLOT_NAME);
    try (OutboxRelay relay = start(fixture)) {
      write(db, OutboxRelayIT.credit("acc-4", 1).build());
      assertThat(OutboxFixture.read(kafka, fixture.topic("account"), 1, TIMEOUT)).hasSize(1);
    }
    // Stopped cleanly: the position is stored. Now the slot is dropped and made again while events
    // commit, as a careless maintenance job or a failover would.
    try (Connection c = db.connection();
        Statement s = c.createStatement()) {
      s.execute("SELECT pg_drop_replication_slot('" + slot + "')");
    }
    // A writer that looks first refuses while the slot is gone; one that found it there before the
    // drop (it looks again every 30 s) writes into the gap.
    OutboxWriter checking =
        OutboxWriter.builder()
            .capture(OutboxCapture.of(new OutboxRelayConfig(fixture.settings)))
            .build();
    assertThatThrownBy(
            () -> {
              try (Connection c = db.connection()) {
                c.setAutoCommit(false);
                checking.write(c, OutboxRelayIT.credit("acc-4", 2).build());
              }
            })
        .isInstanceOf(OutboxNotCapturedException.class)
        .hasMessageContaining("replication slot " + slot + " does not exist");
    try (Connection c = db.connection()) {
      c.setAutoCommit(false);
      OutboxWriter.builder()
          .checkCapture(false)
          .build()
          .write(c, OutboxRelayIT.credit("acc-4", 2).build());
      c.commit();
    }
    assertThatThrownBy(() -> OutboxRelay.create(fixture.settings))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("outbox.slot.gap.policy")
        .hasMessageContaining("does not exist");
    try (Connection c = db.connection();
        Statement s = c.createStatement()) {
      s.execute("SELECT pg_create_logical_replication_slot('" + slot + "', 'pgoutput')");
    }
    assertThatThrownBy(() -> OutboxRelay.create(fixture.settings))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("ahead of the relay's stored position");
    SimpleMeterRegistry meters = new SimpleMeterRegistry();
    fixture.with(OutboxRelayConfig.SLOT_GAP_POLICY, "accept");
    try (OutboxRelay relay = OutboxRelay.create(fixture.settings, meters, Clock.systemUTC())) {
      assertThat(relay.awaitStreaming(TIMEOUT)).isTrue();
      assertThat(meters.get("courier.outbox.slot.gaps").counter().count()).isEqualTo(1);
      write(db, OutboxRelayIT.credit("acc-4", 3).build());
      List<String> delivered =
          values(OutboxFixture.read(kafka, fixture.topic("account"), 2, TIMEOUT));
      assertThat(delivered).containsExactly("{\"amount\":1}", "{\"amount\":3}");
    }
  }

  @Test
  void anOffsetTopicThatIsNotCompactedIsRefusedNamingIt(KafkaBroker kafka, TestDatabase db) {
    OutboxFixture fixture = new OutboxFixture(kafka, db);
    String offsets = fixture.settings.get(OutboxRelayConfig.OFFSET_STORAGE_TOPIC);
    kafka.createTopic(offsets, 1, Map.of("cleanup.policy", "delete"));
    assertThatThrownBy(() -> OutboxRelay.create(fixture.settings))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("outbox.offset.storage.topic")
        .hasMessageContaining("cleanup.policy=delete");
  }

  @Test
  void theOffsetTopicIsCreatedCompactedWithTheConfiguredPartitions(
      KafkaBroker kafka, TestDatabase db) throws Exception {
    OutboxFixture fixture =
        new OutboxFixture(kafka, db).with(OutboxRelayConfig.OFFSET_STORAGE_PARTITIONS, "3");
    String offsets = fixture.settings.get(OutboxRelayConfig.OFFSET_STORAGE_TOPIC);
    try (OutboxRelay relay = start(fixture)) {
      var description =
          kafka.admin().describeTopics(List.of(offsets)).allTopicNames().get(30, TimeUnit.SECONDS);
      assertThat(description.get(offsets).partitions()).hasSize(3);
      var config =
          kafka
              .admin()
              .describeConfigs(List.of(new ConfigResource(ConfigResource.Type.TOPIC, offsets)))
              .all()
              .get(30, TimeUnit.SECONDS)
              .values()
              .iterator()
              .next();
      assertThat(config.get("cleanup.policy").value()).isEqualTo("compact");
    }
  }

  private static OutboxRelay start(OutboxFixture fixture) throws InterruptedException {
    OutboxRelay relay =
        OutboxRelay.create(fixture.settings, new SimpleMeterRegistry(), Clock.systemUTC());
    assertThat(relay.awaitStreaming(TIMEOUT)).isTrue();
    return relay;
  }

  private static List<String> values(List<ConsumerRecord<String, String>> records) {
    return records.stream().map(ConsumerRecord::value).toList();
  }

  private static void write(TestDatabase db, OutboxEvent... events) throws Exception {
    try (Connection c = db.connection()) {
      c.setAutoCommit(false);
      OutboxWriter.create().writeAll(c, List.of(events));
      c.commit();
    }
  }

  /** A row written by hand with SQL, as the writer's own checks would not let it through. */
  private static UUID insertRaw(TestDatabase db, String aggregateType, String aggregateId)
      throws Exception {
    UUID id = UUID.randomUUID();
    try (Connection c = db.connection();
        PreparedStatement ps =
            c.prepareStatement(
                "INSERT INTO courier_outbox (id, aggregatetype, aggregateid, type, payload,"
                    + " content_type) VALUES (?, ?, ?, 'CreditRequested', ?, 'application/json')")) {
      ps.setObject(1, id);
      ps.setString(2, aggregateType);
      ps.setString(3, aggregateId);
      ps.setBytes(4, "{\"amount\":5}".getBytes(java.nio.charset.StandardCharsets.UTF_8));
      ps.executeUpdate();
    }
    return id;
  }
}
