package dev.courier.outbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.courier.core.CourierHeaders;
import dev.courier.testkit.CourierInfraTest;
import dev.courier.testkit.KafkaBroker;
import dev.courier.testkit.PostgresProcess;
import dev.courier.testkit.TcpProxy;
import dev.courier.testkit.UniqueNames;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * PostgreSQL itself fails over under a streaming relay: a primary and a physical standby, the relay
 * and the writers reaching "the database" through an address that moves to the standby when it is
 * promoted (as a DNS name or a virtual IP does). On PostgreSQL 17 with a failover slot the relay
 * goes on from the synced slot, losing nothing; on 16 the promoted server has no slot of the
 * relay's history, and the relay refuses to go on silently.
 */
@CourierInfraTest
class RelayPrimaryFailoverIT {

  private static final Logger LOG = LoggerFactory.getLogger(RelayPrimaryFailoverIT.class);
  private static final Duration TIMEOUT = Duration.ofSeconds(120);
  private static final String STANDBY = "standby1";

  @Test
  void onPostgres17AFailoverSlotSurvivesThePromotionAndNothingIsLost(KafkaBroker kafka)
      throws Exception {
    Path binaries = Path.of(System.getProperty("courier.postgres17.binaries", "missing"));
    assertThat(Files.isReadable(binaries))
        .as("PostgreSQL 17 binaries copied by the build (courier.postgres17.binaries)")
        .isTrue();
    try (PostgresProcess primary = PostgresProcess.builder().binaries(binaries).build().start();
        PostgresProcess standby =
            PostgresProcess.builder()
                .binaries(binaries)
                .standbyOf(primary, STANDBY)
                .setting("sync_replication_slots", "on")
                .build()
                .start();
        TcpProxy database = TcpProxy.to(primary.port())) {
      // Commits wait for the standby, and logical decoding never runs ahead of it: whatever the
      // relay saw, and whatever a writer was told is committed, is on the standby too.
      primary.execute(
          "ALTER SYSTEM SET synchronous_standby_names = '" + STANDBY + "'",
          "ALTER SYSTEM SET synchronized_standby_slots = '" + STANDBY + "'",
          "SELECT pg_reload_conf()");
      awaitSynchronousStandby(primary);
      Map<String, String> settings = settings(kafka, database);
      settings.put(OutboxRelayConfig.SLOT_FAILOVER, "true");
      String slot = settings.get(OutboxRelayConfig.SLOT_NAME);
      String topic = settings.get(OutboxRelayConfig.TOPIC_PREFIX) + ".account";
      SimpleMeterRegistry registry = new SimpleMeterRegistry();
      try (OutboxRelay relay = OutboxRelay.create(settings, registry, Clock.systemUTC())) {
        assertThat(relay.awaitStreaming(TIMEOUT)).isTrue();
        assertThat(
                query(
                    primary, "SELECT failover FROM pg_replication_slots WHERE slot_name = ?", slot))
            .as("the slot is a failover slot")
            .isEqualTo("t");
        List<String> written = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
          written.add(write(database));
        }
        awaitDelivered(kafka, topic, written);
        // The standby's copy is temporary until it has caught up with the primary's, and a
        // promotion drops temporary slots: fail over only once it is persistent.
        await()
            .atMost(TIMEOUT)
            .until(
                () ->
                    "t"
                        .equals(
                            query(
                                standby,
                                "SELECT synced AND NOT temporary FROM pg_replication_slots"
                                    + " WHERE slot_name = ?",
                                slot)));
        for (int i = 0; i < 10; i++) {
          written.add(write(database));
        }

        long crashed = System.nanoTime();
        primary.crash();
        standby.promote();
        database.moveTo(standby.port());
        for (int i = 0; i < 10; i++) {
          written.add(write(database));
        }
        awaitDelivered(kafka, topic, written);
        long resumedMs = (System.nanoTime() - crashed) / 1_000_000;

        List<ConsumerRecord<String, String>> records =
            kafka.readStrings(topic, written.size(), TIMEOUT);
        List<String> ids = ids(records);
        int duplicates = ids.size() - (int) ids.stream().distinct().count();
        LOG.info(
            "primary failover on PostgreSQL 17: all {} events delivered {} ms after the primary's"
                + " crash; {} records, {} duplicates",
            written.size(),
            resumedMs,
            ids.size(),
            duplicates);
        assertThat(ids.stream().distinct().toList())
            .as("nothing lost, in commit order")
            .containsExactlyElementsOf(written);
        await().atMost(TIMEOUT).until(() -> relay.health().ready());
        assertThat(relay.failure()).isNull();
      }
    }
  }

  /**
   * The case a position comparison alone let through: the standby stopped receiving WAL while the
   * relay went on relaying from the primary, so the promoted server is behind the stored position,
   * and a failover tool made the slot again there, at that older position, before the relay came
   * back. Debezium, restarting its task inside the running engine, found a slot behind its offset
   * and streamed from the offset: what the new primary committed in between was skipped, with the
   * relay healthy. Every start of the engine's task now checks the slot and the server: the
   * timeline changed and the slot is no failover slot.
   */
  @Test
  void onPostgres16AFailoverToALaggingStandbyWithARemadeSlotIsRefusedNotSkippedSilently(
      KafkaBroker kafka) throws Exception {
    try (PostgresProcess primary = PostgresProcess.builder().build().start();
        PostgresProcess standby =
            PostgresProcess.builder().standbyOf(primary, STANDBY).build().start();
        TcpProxy database = TcpProxy.to(primary.port())) {
      awaitStreamingStandby(primary);
      Map<String, String> settings = settings(kafka, database);
      String topic = settings.get(OutboxRelayConfig.TOPIC_PREFIX) + ".account";
      try (OutboxRelay relay =
          OutboxRelay.create(settings, new SimpleMeterRegistry(), Clock.systemUTC())) {
        assertThat(relay.awaitStreaming(TIMEOUT)).isTrue();
        List<String> written = new ArrayList<>();
        written.add(write(database));
        awaitDelivered(kafka, topic, written);

        // The standby stops receiving WAL; the primary goes on, and the relay stores positions
        // the standby never sees.
        standby.execute("ALTER SYSTEM SET primary_conninfo = ''", "SELECT pg_reload_conf()");
        awaitAnswer(standby, "SELECT count(*) FROM pg_stat_wal_receiver", null, "0");
        written.add(write(database));
        // The next WAL segment: the stored position is then far ahead of the standby's.
        primary.execute("SELECT pg_switch_wal()");
        written.add(write(database));
        awaitDelivered(kafka, topic, written);
        String end = query(primary, "SELECT pg_current_wal_lsn()::text", null);
        // Stored, too: the slot is confirmed only after the position is stored.
        awaitAnswer(
            primary,
            "SELECT (confirmed_flush_lsn >= '"
                + end
                + "'::pg_lsn)::text"
                + " FROM pg_replication_slots WHERE slot_name = ?",
            settings.get(OutboxRelayConfig.SLOT_NAME),
            "true");

        primary.crash();
        standby.promote();
        standby.execute(
            "SELECT pg_create_logical_replication_slot('"
                + settings.get(OutboxRelayConfig.SLOT_NAME)
                + "', 'pgoutput')");
        database.moveTo(standby.port());
        String after = write(database); // behind the stored position, on the new timeline
        await().atMost(Duration.ofSeconds(60)).until(() -> relay.failure() != null);
        LOG.info("after a failover to a lagging standby: {}", relay.failure().getMessage());
        assertThat(relay.failure().getMessage())
            .contains(OutboxRelayConfig.SLOT_GAP_POLICY)
            .contains(settings.get(OutboxRelayConfig.SLOT_NAME))
            .contains("changed timeline from 1 to 2");
        assertThat(ids(kafka.readStrings(topic, written.size() + 1, Duration.ofSeconds(2))))
            .as("nothing published from a slot made after the failover")
            .containsExactlyElementsOf(written)
            .doesNotContain(after);
      }
    }
  }

  /** Waits until {@code sql} (one parameter at most) answers {@code expected} on {@code pg}. */
  private static void awaitAnswer(
      PostgresProcess pg, String sql, String parameter, String expected) {
    await().atMost(TIMEOUT).until(() -> query(pg, sql, parameter), expected::equals);
  }

  private static void awaitStreamingStandby(PostgresProcess primary) {
    awaitAnswer(
        primary,
        "SELECT state FROM pg_stat_replication WHERE application_name = ?",
        STANDBY,
        "streaming");
  }

  private static void awaitSynchronousStandby(PostgresProcess primary) {
    awaitAnswer(
        primary,
        "SELECT sync_state FROM pg_stat_replication WHERE application_name = ? AND state ="
            + " 'streaming'",
        STANDBY,
        "sync");
  }

  private static Map<String, String> settings(KafkaBroker kafka, TcpProxy database) {
    String prefix = UniqueNames.topic("failover").replace('-', '_');
    Map<String, String> settings =
        new HashMap<>(
            OutboxRelayConfig.settings(
                kafka.bootstrapServers(),
                "jdbc:postgresql://localhost:" + database.port() + "/postgres",
                "postgres",
                "postgres",
                prefix));
    settings.put(OutboxRelayConfig.STARTUP_BACKOFF_MAX_MS, "1000");
    return settings;
  }

  private static String query(PostgresProcess pg, String sql, String parameter) throws Exception {
    try (Connection c = pg.dataSource("postgres").getConnection();
        PreparedStatement ps = c.prepareStatement(sql)) {
      if (parameter != null) {
        ps.setString(1, parameter);
      }
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? rs.getString(1) : null;
      }
    }
  }

  /** Writes one event through the moving address; retried while the new primary comes up. */
  private static String write(TcpProxy database) {
    PGSimpleDataSource ds = new PGSimpleDataSource();
    ds.setServerNames(new String[] {"localhost"});
    ds.setPortNumbers(new int[] {database.port()});
    ds.setDatabaseName("postgres");
    ds.setUser("postgres");
    OutboxEvent event = OutboxRelayIT.credit("acc-1", 1).build();
    await()
        .atMost(TIMEOUT)
        .ignoreExceptions()
        .until(
            () -> {
              try (Connection c = ds.getConnection()) {
                c.setAutoCommit(false);
                OutboxWriter.create().write(c, event);
                c.commit();
                return true;
              }
            });
    return event.eventId().toString();
  }

  private static void awaitDelivered(KafkaBroker kafka, String topic, List<String> ids) {
    await()
        .atMost(TIMEOUT)
        .pollInterval(Duration.ofMillis(250))
        .until(
            () ->
                ids(kafka.readStrings(topic, ids.size(), Duration.ofMillis(500))).containsAll(ids));
  }

  private static List<String> ids(List<ConsumerRecord<String, String>> records) {
    return records.stream().map(r -> OutboxFixture.header(r, CourierHeaders.ID)).toList();
  }
}
