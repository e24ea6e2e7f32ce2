package dev.courier.outbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.courier.testkit.CourierInfraTest;
import dev.courier.testkit.KafkaBroker;
import dev.courier.testkit.PostgresServer;
import dev.courier.testkit.TestDatabase;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An idle outbox next to a busy database: without heartbeats the slot keeps every byte of WAL the
 * other tables write; with heartbeats the relay confirms progress and the retained WAL stays small.
 */
@CourierInfraTest
class SlotHealthIT {

  private static final Logger LOG = LoggerFactory.getLogger(SlotHealthIT.class);
  private static final long MIB = 1024 * 1024;

  @Test
  void heartbeatsKeepRetainedWalBoundedWhileTheOutboxIsIdle(
      KafkaBroker kafka, TestDatabase db, PostgresServer postgres) throws Exception {
    // The relay without heartbeats gets a database of its own: the other relay's heartbeat rows
    // would otherwise reach it and move its slot too.
    try (TestDatabase quiet = postgres.createDatabase("slot_quiet")) {
      OutboxFixture beating =
          new OutboxFixture(kafka, db).with(OutboxRelayConfig.HEARTBEAT_INTERVAL_MS, "500");
      OutboxFixture silent =
          new OutboxFixture(kafka, quiet).with(OutboxRelayConfig.HEARTBEAT_INTERVAL_MS, "0");
      try (OutboxRelay withHeartbeats =
              OutboxRelay.create(beating.settings, new SimpleMeterRegistry(), Clock.systemUTC());
          OutboxRelay withoutHeartbeats =
              OutboxRelay.create(silent.settings, new SimpleMeterRegistry(), Clock.systemUTC())) {
        assertThat(withHeartbeats.awaitStreaming(Duration.ofSeconds(60))).isTrue();
        assertThat(withoutHeartbeats.awaitStreaming(Duration.ofSeconds(60))).isTrue();
        long before = withHeartbeats.retainedWalBytes();

        // Busy elsewhere: about 20 MiB of WAL from a table outside both publications.
        try (Connection c = db.connection();
            Statement s = c.createStatement()) {
          s.execute(
              "CREATE TABLE IF NOT EXISTS unrelated_work (id bigserial PRIMARY KEY, pad text)");
          s.execute(
              "INSERT INTO unrelated_work (pad) SELECT repeat('x', 300) FROM generate_series(1, 60000)");
        }

        await()
            .atMost(Duration.ofSeconds(60))
            .pollInterval(Duration.ofMillis(250))
            .until(() -> withHeartbeats.retainedWalBytes() < MIB);
        long after = withHeartbeats.retainedWalBytes();
        long silentRetained = withoutHeartbeats.retainedWalBytes();
        LOG.info(
            "retained WAL: before {} B; after 20 MiB elsewhere: {} B with heartbeats, {} B without",
            before,
            after,
            silentRetained);
        assertThat(silentRetained)
            .as("without heartbeats the slot pins the new WAL")
            .isGreaterThan(15 * MIB);
      }
    }
  }
}
