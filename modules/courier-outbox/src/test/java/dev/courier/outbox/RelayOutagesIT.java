package dev.courier.outbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.courier.core.ServiceHealth;
import dev.courier.testkit.KafkaProcess;
import dev.courier.testkit.PostgresProcess;
import dev.courier.testkit.UniqueNames;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.sql.Connection;
import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The relay against a PostgreSQL and a broker of its own that the test takes away: PostgreSQL
 * crashed while streaming, the broker frozen. The relay never gives up, says why on its health, and
 * delivers everything once they are back. (Both missing at start is RelayServiceIT's first test,
 * through the packaged service, which runs this same relay and also shows its /health and log.)
 */
class RelayOutagesIT {

  private static final Logger LOG = LoggerFactory.getLogger(RelayOutagesIT.class);
  private static final Duration TIMEOUT = Duration.ofSeconds(90);

  @Test
  void aPostgresCrashIsRecoveredWithinSecondsOfItsReturn() throws Exception {
    try (PostgresProcess pg = PostgresProcess.builder().build().start();
        KafkaProcess kafka = KafkaProcess.plaintext().start()) {
      Map<String, String> settings = settings(pg, kafka);
      try (OutboxRelay relay =
          OutboxRelay.create(settings, new SimpleMeterRegistry(), Clock.systemUTC())) {
        assertThat(relay.awaitStreaming(TIMEOUT)).isTrue();
        write(pg, "acc-1", 1);
        assertThat(kafka.readValues(accounts(settings), 1, Duration.ZERO)).hasSize(1);
        pg.crash();
        ServiceHealth recovering =
            awaitHealth(relay, "RECOVERING", "lost the connection to PostgreSQL");
        assertThat(recovering.ready()).isFalse();
        long restarted = System.nanoTime();
        pg.start();
        long accepting = System.nanoTime();
        write(pg, "acc-1", 2);
        List<String> both = kafka.readValues(accounts(settings), 2, Duration.ZERO);
        double delivered = (System.nanoTime() - accepting) / 1e9;
        await().atMost(TIMEOUT).until(() -> relay.health().ready());
        LOG.info(
            "PostgreSQL took {} s to start; the first event after it was delivered {} s after it"
                + " accepted connections",
            String.format("%.2f", (accepting - restarted) / 1e9),
            String.format("%.2f", delivered));
        assertThat(both).containsExactly("{\"amount\":1}", "{\"amount\":2}");
        assertThat(delivered)
            .as("delivery resumes within outbox.postgres.reconnect.interval.ms (500) plus a start")
            .isLessThan(4.0);
      }
    }
  }

  @Test
  void aFrozenBrokerMakesTheRelayUnreadyAndItsReturnDeliversEverything() throws Exception {
    try (PostgresProcess pg = PostgresProcess.builder().build().start();
        KafkaProcess kafka = KafkaProcess.plaintext().start()) {
      Map<String, String> settings = settings(pg, kafka);
      settings.put(OutboxRelayConfig.HEALTH_ACK_TIMEOUT_MS, "2000");
      settings.put(OutboxRelayConfig.DELIVERY_TIMEOUT_MS, "5000");
      try (OutboxRelay relay =
          OutboxRelay.create(settings, new SimpleMeterRegistry(), Clock.systemUTC())) {
        assertThat(relay.awaitStreaming(TIMEOUT)).isTrue();
        write(pg, "acc-1", 1);
        assertThat(kafka.readValues(accounts(settings), 1, Duration.ZERO)).hasSize(1);
        kafka.freeze();
        try {
          write(pg, "acc-1", 2);
          write(pg, "acc-1", 3);
          ServiceHealth degraded =
              awaitHealth(relay, "DEGRADED", "Kafka has acknowledged nothing for over 2 s");
          assertThat(degraded.ready()).isFalse();
          assertThat(degraded.live()).isTrue();
        } finally {
          kafka.thaw();
        }
        assertThat(kafka.readValues(accounts(settings), 3, Duration.ZERO))
            .containsSubsequence("{\"amount\":1}", "{\"amount\":2}", "{\"amount\":3}");
        await().atMost(TIMEOUT).until(() -> relay.health().ready());
      }
    }
  }

  private static ServiceHealth awaitHealth(OutboxRelay relay, String status, String reason) {
    return await()
        .atMost(TIMEOUT)
        .until(relay::health, h -> h.status().equals(status) && h.reason().contains(reason));
  }

  private static Map<String, String> settings(PostgresProcess pg, KafkaProcess kafka) {
    String prefix = UniqueNames.topic("outage").replace('-', '_');
    Map<String, String> settings =
        OutboxRelayConfig.settings(
            kafka.bootstrapServers(), pg.jdbcUrl("postgres"), "postgres", "postgres", prefix);
    settings.put(OutboxRelayConfig.STARTUP_BACKOFF_MAX_MS, "1000");
    return new HashMap<>(settings);
  }

  private static void write(PostgresProcess pg, String account, int amount) throws Exception {
    try (Connection c = pg.dataSource("postgres").getConnection()) {
      c.setAutoCommit(false);
      OutboxWriter.create().write(c, OutboxRelayIT.credit(account, amount).build());
      c.commit();
    }
  }

  private static String accounts(Map<String, String> settings) {
    return settings.get(OutboxRelayConfig.TOPIC_PREFIX) + ".account";
  }
}
