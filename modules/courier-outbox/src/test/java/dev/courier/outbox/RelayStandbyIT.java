package dev.courier.outbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.courier.core.CourierHeaders;
import dev.courier.testkit.CourierInfraTest;
import dev.courier.testkit.JvmWorker;
import dev.courier.testkit.KafkaBroker;
import dev.courier.testkit.TcpProxy;
import dev.courier.testkit.TestDatabase;
import dev.courier.testkit.WorkerProcess;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.config.ConfigException;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Two relays with the same settings on one slot, as two replicas of a Deployment: one leads and
 * streams, the other waits as a standby (live, not ready, the leader named) and takes over when the
 * leader is killed or frozen. Every record names its term in the {@code courier.relay} header, so
 * the records themselves show that a frozen leader published nothing after the takeover.
 */
@CourierInfraTest
class RelayStandbyIT {

  private static final Logger LOG = LoggerFactory.getLogger(RelayStandbyIT.class);
  private static final Duration TIMEOUT = Duration.ofSeconds(90);

  @Test
  void aStandbyTakesOverWithinSecondsOfTheLeadersKillLosingNothing(
      KafkaBroker kafka, TestDatabase db) throws Exception {
    OutboxFixture fixture = new OutboxFixture(kafka, db);
    String topic = fixture.topic("account");
    try (WorkerProcess leader = startLeader(fixture, "relay-1")) {
      SimpleMeterRegistry registry = new SimpleMeterRegistry();
      try (OutboxRelay standby =
          OutboxRelay.create(fixture.settings, registry, Clock.systemUTC())) {
        awaitStandby(standby, fixture);
        assertThat(registry.get("courier.outbox.leader").gauge().value()).isZero();
        List<String> written = new ArrayList<>();
        written.add(OutboxFixture.write(db, "acc-1"));
        List<ConsumerRecord<String, String>> first = OutboxFixture.read(kafka, topic, 1, TIMEOUT);
        long leaderTerm = OutboxFixture.incarnation(first.get(0));
        assertThat(standby.health().status())
            .as("never streams beside the leader")
            .isEqualTo("STANDBY");

        long killed = System.nanoTime();
        leader.kill();
        for (int i = 0; i < 5; i++) {
          written.add(OutboxFixture.write(db, "acc-1"));
        }
        awaitDelivered(kafka, topic, written);
        long takeoverMs = (System.nanoTime() - killed) / 1_000_000;
        LOG.info(
            "takeover: every event written after the SIGKILL delivered {} ms after it", takeoverMs);

        List<ConsumerRecord<String, String>> records =
            OutboxFixture.read(kafka, topic, written.size(), TIMEOUT);
        assertThat(ids(records).stream().distinct().toList())
            .as("nothing lost, in commit order")
            .containsExactlyElementsOf(written);
        assertThat(OutboxFixture.incarnation(records.get(records.size() - 1)))
            .isGreaterThan(leaderTerm);
        assertThat(takeoverMs)
            .as("a standby publishes within 10 s of the leader's kill")
            .isLessThan(10_000);
        assertThat(standby.health().status()).isEqualTo("STREAMING");
        assertThat(registry.get("courier.outbox.leader").gauge().value()).isEqualTo(1.0);
        assertThat(registry.get("courier.outbox.leader.takeovers").counter().count())
            .isEqualTo(1.0);
        assertThat(registry.get("courier.outbox.leader.takeover").timer().count()).isEqualTo(1);
      }
    }
  }

  @Test
  void aFrozenLeaderLosesItsLeaseAndPublishesNothingAfterTheTakeover(
      KafkaBroker kafka, TestDatabase db) throws Exception {
    OutboxFixture fixture =
        new OutboxFixture(kafka, db).with(OutboxRelayConfig.LEADER_LEASE_MS, "4000");
    String topic = fixture.topic("account");
    try (WorkerProcess leader = startLeader(fixture, "relay-frozen")) {
      List<String> written = new ArrayList<>();
      try (OutboxRelay standby =
          OutboxRelay.create(fixture.settings, new SimpleMeterRegistry(), Clock.systemUTC())) {
        awaitStandby(standby, fixture);
        written.add(OutboxFixture.write(db, "acc-1"));
        long leaderTerm =
            OutboxFixture.incarnation(OutboxFixture.read(kafka, topic, 1, TIMEOUT).get(0));

        leader.freeze();
        long frozen = System.nanoTime();
        try {
          written.add(OutboxFixture.write(db, "acc-1"));
          written.add(OutboxFixture.write(db, "acc-1"));
          awaitDelivered(kafka, topic, written);
          LOG.info(
              "takeover from a frozen leader (lease 4 s): delivered {} ms after SIGSTOP",
              (System.nanoTime() - frozen) / 1_000_000);
        } finally {
          leader.thaw();
        }
        await()
            .atMost(TIMEOUT)
            .until(() -> leader.output().contains("lost the leadership") || !leader.isAlive());
        assertThat(leader.isAlive()).as("the old leader lives on as a standby").isTrue();
        written.add(OutboxFixture.write(db, "acc-1"));
        written.add(OutboxFixture.write(db, "acc-1"));
        awaitDelivered(kafka, topic, written);

        List<ConsumerRecord<String, String>> records =
            OutboxFixture.read(kafka, topic, written.size(), TIMEOUT);
        int firstOfNewTerm = -1;
        int lastOfOldTerm = -1;
        for (int i = 0; i < records.size(); i++) {
          long term = OutboxFixture.incarnation(records.get(i));
          if (term == leaderTerm) {
            lastOfOldTerm = i;
          } else if (firstOfNewTerm < 0) {
            assertThat(term).isGreaterThan(leaderTerm);
            firstOfNewTerm = i;
          }
        }
        assertThat(firstOfNewTerm).as("the standby took over").isPositive();
        assertThat(lastOfOldTerm)
            .as("the frozen leader published nothing after the takeover")
            .isLessThan(firstOfNewTerm);
        assertThat(ids(records).stream().distinct().toList())
            .as("nothing lost, in commit order")
            .containsExactlyElementsOf(written);
        assertThat(standby.health().status()).isEqualTo("STREAMING");
      }
      // Debezium hands its Kafka offset store an admin client nothing closed: every engine start
      // (this standby's, and each restart of a long-lived relay) left one behind, thread and all.
      await()
          .atMost(TIMEOUT)
          .untilAsserted(
              () ->
                  assertThat(
                          Thread.getAllStackTraces().keySet().stream()
                              .map(Thread::getName)
                              .filter(name -> name.contains("debezium-servershared-admin")))
                      .as("offset store admin clients left after the relay closed")
                      .isEmpty());

      // The new leader goes; the woken one leads again. Its engine stopped after the takeover and
      // must not have stored its older position over the new leader's: that would look like a gap
      // (the slot ahead of the stored position) and the relay would refuse to start.
      written.add(OutboxFixture.write(db, "acc-1"));
      awaitDelivered(kafka, topic, written);
      await()
          .atMost(TIMEOUT)
          .until(() -> leader.output().contains("took over slot") || !leader.isAlive());
      assertThat(leader.output())
          .as("leads again without a false gap")
          .contains("took over slot")
          .doesNotContain("relay FAILED");
    }
  }

  @Test
  void aLeaderCutOffFromPostgresIsTakenOverAndStillLeavesAtOnceOnSigterm(
      KafkaBroker kafka, TestDatabase db) throws Exception {
    OutboxFixture fixture =
        new OutboxFixture(kafka, db).with(OutboxRelayConfig.LEADER_LEASE_MS, "4000");
    String topic = fixture.topic("account");
    try (TcpProxy network = TcpProxy.to(db.server().port());
        WorkerProcess leader =
            startLeader(
                fixture.args(Map.of(OutboxRelayConfig.DATABASE_PORT, "" + network.port())),
                "relay-cut-off");
        OutboxRelay standby =
            OutboxRelay.create(fixture.settings, new SimpleMeterRegistry(), Clock.systemUTC())) {
      awaitStandby(standby, fixture);
      List<String> written = new ArrayList<>();
      written.add(OutboxFixture.write(db, "acc-1"));
      long leaderTerm =
          OutboxFixture.incarnation(OutboxFixture.read(kafka, topic, 1, TIMEOUT).get(0));

      // Every connection the leader has to PostgreSQL, its lock's included, now hangs: no reset,
      // no answer, as when the primary's host is gone or the network is partitioned.
      network.partition();
      try {
        written.add(OutboxFixture.write(db, "acc-1"));
        awaitDelivered(kafka, topic, written);
        assertThat(OutboxFixture.incarnation(OutboxFixture.read(kafka, topic, 2, TIMEOUT).get(1)))
            .as("the standby took over once PostgreSQL ended the silent leader's session")
            .isGreaterThan(leaderTerm);
        // Before, its lease renewal waited for ever on the silent connection and held the
        // leadership's monitor, so the SIGTERM handler waited behind it: the process never ended.
        long signalled = System.nanoTime();
        assertThat(leader.terminate(Duration.ofSeconds(30)))
            .as("SIGTERM ends the cut-off relay")
            .isEqualTo(WorkerProcess.SIGTERM_EXIT_STATUS);
        LOG.info(
            "a relay cut off from PostgreSQL ended {} ms after SIGTERM",
            (System.nanoTime() - signalled) / 1_000_000);
      } finally {
        network.heal();
      }
      written.add(OutboxFixture.write(db, "acc-1"));
      awaitDelivered(kafka, topic, written);
      assertThat(ids(OutboxFixture.read(kafka, topic, written.size(), TIMEOUT)))
          .as("nothing lost, in commit order")
          .containsExactlyElementsOf(written);
    }
  }

  /**
   * A standby does not read the stored position itself when it takes over: its engine's read, after
   * the former leader's transactions are fenced, is checked. A slot recreated while it stood by is
   * still refused, naming the setting, as at a start.
   */
  @Test
  void aStandbyThatTakesOverARecreatedSlotRefusesItNamingTheSetting(
      KafkaBroker kafka, TestDatabase db) throws Exception {
    OutboxFixture fixture = new OutboxFixture(kafka, db);
    String slot = fixture.settings.get(OutboxRelayConfig.SLOT_NAME);
    try (OutboxRelay first = OutboxRelay.create(fixture.settings)) {
      assertThat(first.awaitStreaming(TIMEOUT)).isTrue();
      OutboxFixture.write(db, "acc-1");
      assertThat(OutboxFixture.read(kafka, fixture.topic("account"), 1, TIMEOUT)).hasSize(1);
    }
    // The test leads for a while, by holding the relays' lock, so the relay below stands by.
    try (Connection leader = db.connection()) {
      try (PreparedStatement lock =
          leader.prepareStatement(
              "SELECT pg_advisory_lock(hashtextextended('courier.outbox.relay/' || ?, 0))")) {
        lock.setString(1, slot);
        lock.executeQuery().close();
      }
      try (OutboxRelay standby =
          OutboxRelay.create(fixture.settings, new SimpleMeterRegistry(), Clock.systemUTC())) {
        await().atMost(TIMEOUT).until(() -> standby.health().status().equals("STANDBY"));
        try (Connection c = db.connection();
            Statement s = c.createStatement()) {
          s.execute("SELECT pg_drop_replication_slot('" + slot + "')");
          OutboxFixture.writeUnchecked(db, "acc-1");
          s.execute("SELECT pg_create_logical_replication_slot('" + slot + "', 'pgoutput')");
        }
        leader.close();
        await().atMost(TIMEOUT).until(() -> standby.failure() != null);
        assertThat(standby.failure())
            .isInstanceOf(ConfigException.class)
            .hasMessageContaining("outbox.slot.gap.policy")
            .hasMessageContaining("ahead of the relay's stored position");
        assertThat(standby.health().live()).isFalse();
      }
    }
  }

  private static WorkerProcess startLeader(OutboxFixture fixture, String name) {
    return startLeader(fixture.args(), name);
  }

  private static WorkerProcess startLeader(String[] args, String name) {
    WorkerProcess leader = JvmWorker.of(RelayMain.class).args(args).name(name).start();
    try {
      await()
          .atMost(TIMEOUT)
          .until(() -> leader.output().contains(RelayMain.STREAMING) || !leader.isAlive());
    } catch (ConditionTimeoutException e) {
      throw new AssertionError("the first relay did not stream:\n" + leader.output(), e);
    }
    assertThat(leader.output()).as("the first relay leads").contains(RelayMain.STREAMING);
    return leader;
  }

  private static void awaitStandby(OutboxRelay standby, OutboxFixture fixture) {
    await().atMost(TIMEOUT).until(() -> standby.health().status().equals("STANDBY"));
    assertThat(standby.health().ready()).isFalse();
    assertThat(standby.health().live()).isTrue();
    assertThat(standby.health().reason())
        .contains(fixture.settings.get(OutboxRelayConfig.SLOT_NAME))
        .contains(fixture.settings.get(OutboxRelayConfig.RELAY_NAME) + "@")
        .contains("takes over when it stops");
  }

  private static void awaitDelivered(KafkaBroker kafka, String topic, List<String> ids) {
    await()
        .atMost(TIMEOUT)
        .pollInterval(Duration.ofMillis(100))
        .until(
            () ->
                ids(OutboxFixture.read(kafka, topic, ids.size(), Duration.ofMillis(200)))
                    .containsAll(ids));
  }

  private static List<String> ids(List<ConsumerRecord<String, String>> records) {
    return records.stream().map(r -> OutboxFixture.header(r, CourierHeaders.ID)).toList();
  }
}
