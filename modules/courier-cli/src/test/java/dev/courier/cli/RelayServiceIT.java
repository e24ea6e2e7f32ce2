package dev.courier.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.courier.outbox.OutboxEvent;
import dev.courier.outbox.OutboxRelayConfig;
import dev.courier.outbox.OutboxWriter;
import dev.courier.testkit.KafkaProcess;
import dev.courier.testkit.PostgresProcess;
import dev.courier.testkit.SettingsFile;
import dev.courier.testkit.TestCertificates;
import dev.courier.testkit.UniqueNames;
import dev.courier.testkit.WorkerProcess;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.sql.Connection;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@code courier relay} from the packaged jar as an orchestrator runs it, against a PostgreSQL and
 * a broker of the test's own: started before them, PostgreSQL lost during its start, a server that
 * is set up wrong, and a PostgreSQL that requires TLS. Outages are waited out with the reason on
 * /health and in the log once; only a wrong setting exits, with status 2, naming it.
 */
class RelayServiceIT {

  private static final Duration TIMEOUT = CourierProcess.TIMEOUT;

  @Test
  void startedBeforePostgresAndKafkaItWaitsSaysWhyAndThenStreams() throws Exception {
    try (PostgresProcess pg = PostgresProcess.builder().build();
        KafkaProcess kafka = KafkaProcess.plaintext()) {
      Map<String, String> settings = settings(pg, kafka);
      try (WorkerProcess relay = relay(settings)) {
        int port = CourierProcess.port(relay);
        CourierProcess.awaitHealth(
            port, 503, "PostgreSQL at localhost:" + pg.port() + " is not available");
        assertThat(CourierProcess.get(port, "/health/live").statusCode())
            .as("waiting out an outage is healthy")
            .isEqualTo(200);
        // Retries do not repeat the cause in the log: it is said once per change.
        await().atMost(TIMEOUT).until(() -> relay.output().contains("Connection refused"));
        assertThat(count(relay.output(), "is not available: Connection to localhost:" + pg.port()))
            .isEqualTo(1);
        pg.start();
        CourierProcess.awaitHealth(port, 503, "Kafka at localhost:" + kafka.port());
        kafka.start();
        CourierProcess.awaitHealth(port, 200, "streaming from slot");
        write(pg, "acc-1", 7);
        assertThat(
                kafka.readValues(
                    settings.get(OutboxRelayConfig.TOPIC_PREFIX) + ".account", 1, Duration.ZERO))
            .containsExactly("{\"amount\":7}");
        assertThat(relay.terminate(TIMEOUT)).isEqualTo(WorkerProcess.SIGTERM_EXIT_STATUS);
        assertThat(relay.output()).contains("courier relay: stopped cleanly");
      }
    }
  }

  @Test
  void twoReplicasOneLeadsTheOtherStandsByAndTakesOverWhenTheLeaderIsStopped() throws Exception {
    try (PostgresProcess pg = PostgresProcess.builder().build().start();
        KafkaProcess kafka = KafkaProcess.plaintext().start()) {
      Map<String, String> settings = settings(pg, kafka);
      String topic = settings.get(OutboxRelayConfig.TOPIC_PREFIX) + ".account";
      try (WorkerProcess leader = relay(settings)) {
        int leaderPort = CourierProcess.port(leader);
        CourierProcess.awaitHealth(leaderPort, 200, "streaming from slot");
        try (WorkerProcess standby = relay(settings)) {
          int standbyPort = CourierProcess.port(standby);
          CourierProcess.awaitHealth(standbyPort, 503, "this relay takes over when it stops");
          HttpResponse<String> replica = CourierProcess.get(standbyPort, "/health/replica");
          assertThat(replica.statusCode())
              .as("a healthy standby is a ready replica")
              .isEqualTo(200);
          assertThat(replica.body()).contains("\"state\":\"STANDBY\"");
          assertThat(CourierProcess.get(standbyPort, "/health/live").statusCode()).isEqualTo(200);
          assertThat(CourierProcess.get(leaderPort, "/health/replica").statusCode()).isEqualTo(200);
          assertThat(CourierProcess.get(leaderPort, "/metrics").body())
              .contains(
                  "courier_outbox_leader{relay=\""
                      + settings.get(OutboxRelayConfig.RELAY_NAME)
                      + "\"} 1.0");
          assertThat(CourierProcess.get(standbyPort, "/metrics").body())
              .contains(
                  "courier_outbox_leader{relay=\""
                      + settings.get(OutboxRelayConfig.RELAY_NAME)
                      + "\"} 0.0");
          write(pg, "acc-9", 1);
          assertThat(kafka.readValues(topic, 1, Duration.ZERO)).containsExactly("{\"amount\":1}");

          // A rolling update: the leader is stopped, finishes its batch and hands the slot over.
          assertThat(leader.terminate(TIMEOUT)).isEqualTo(WorkerProcess.SIGTERM_EXIT_STATUS);
          CourierProcess.awaitHealth(standbyPort, 200, "streaming from slot");
          write(pg, "acc-9", 2);
          assertThat(kafka.readValues(topic, 2, Duration.ZERO))
              .containsExactly("{\"amount\":1}", "{\"amount\":2}");
          assertThat(CourierProcess.get(standbyPort, "/metrics").body())
              .contains("courier_outbox_leader_takeovers_total")
              .contains(
                  "courier_outbox_leader{relay=\""
                      + settings.get(OutboxRelayConfig.RELAY_NAME)
                      + "\"} 1.0");
          assertThat(standby.terminate(TIMEOUT)).isEqualTo(WorkerProcess.SIGTERM_EXIT_STATUS);
        }
      }
    }
  }

  @Test
  void postgresLostDuringStartIsWaitedOut() throws Exception {
    try (PostgresProcess pg = PostgresProcess.builder().build().start();
        KafkaProcess kafka = KafkaProcess.plaintext().start()) {
      Map<String, String> settings = settings(pg, kafka);
      try (WorkerProcess relay = relay(settings)) {
        int port = CourierProcess.port(relay);
        // The checks passed and the engine is about to start: PostgreSQL goes away right then.
        await()
            .atMost(TIMEOUT)
            .until(() -> relay.output().contains("no stored position; starting from slot"));
        // A healthy start warns of nothing about its state (it warned "relay WAITING: checking
        // Kafka at ..." on every start). Its steps are logged as the health is sampled, once a
        // second, so a check that passes quickly may not be logged at all: not asserted.
        assertThat(relay.output())
            .doesNotContain("relay WAITING")
            .doesNotContain("WARN RelayState");
        pg.crash();
        CourierProcess.awaitHealth(port, 503, "PostgreSQL");
        assertThat(relay.isAlive()).isTrue();
        pg.start();
        CourierProcess.awaitHealth(port, 200, "streaming from slot");
        write(pg, "acc-2", 3);
        assertThat(
                kafka.readValues(
                    settings.get(OutboxRelayConfig.TOPIC_PREFIX) + ".account", 1, Duration.ZERO))
            .containsExactly("{\"amount\":3}");
        assertThat(relay.terminate(TIMEOUT)).isEqualTo(WorkerProcess.SIGTERM_EXIT_STATUS);
      }
    }
  }

  @Test
  void aServerWithoutLogicalDecodingIsAWrongSettingAndExitsTwoNamingIt() throws Exception {
    try (PostgresProcess pg =
            PostgresProcess.builder().setting("wal_level", "replica").build().start();
        KafkaProcess kafka = KafkaProcess.plaintext().start();
        WorkerProcess relay = relay(settings(pg, kafka))) {
      assertThat(relay.awaitExit(TIMEOUT)).isEqualTo(Courier.CONFIG_ERROR);
      assertThat(relay.output())
          .contains("configuration error")
          .contains("wal_level=replica")
          .contains("wal_level=logical");
    }
  }

  @Test
  void aDatabaseThatRequiresTlsIsReachedWithVerifyFullAndAWrongCaIsRefused() throws Exception {
    TestCertificates certificates = TestCertificates.create("relay");
    TestCertificates stranger = TestCertificates.create("stranger");
    try (PostgresProcess pg = PostgresProcess.builder().tls(certificates).build().start();
        KafkaProcess kafka = KafkaProcess.plaintext().start()) {
      Map<String, String> settings = settings(pg, kafka);
      settings.put(OutboxRelayConfig.DATABASE_SSLMODE, "verify-full");
      settings.put(OutboxRelayConfig.DATABASE_SSLROOTCERT, stranger.caCertificate().toString());
      try (WorkerProcess refused = relay(settings)) {
        assertThat(refused.awaitExit(TIMEOUT)).isEqualTo(Courier.CONFIG_ERROR);
        assertThat(refused.output())
            .contains("configuration error")
            .contains(OutboxRelayConfig.DATABASE_SSLROOTCERT)
            .contains("TLS to PostgreSQL");
      }
      settings.put(OutboxRelayConfig.DATABASE_SSLROOTCERT, certificates.caCertificate().toString());
      try (WorkerProcess relay = relay(settings)) {
        int port = CourierProcess.port(relay);
        CourierProcess.awaitHealth(port, 200, "streaming from slot");
        write(pg, "acc-3", 5);
        assertThat(
                kafka.readValues(
                    settings.get(OutboxRelayConfig.TOPIC_PREFIX) + ".account", 1, Duration.ZERO))
            .containsExactly("{\"amount\":5}");
        assertThat(relay.terminate(TIMEOUT)).isEqualTo(WorkerProcess.SIGTERM_EXIT_STATUS);
      }
    }
  }

  private static WorkerProcess relay(Map<String, String> settings) {
    Path config = SettingsFile.write(settings);
    return CourierProcess.jar("relay", Map.of(), List.of("relay", "--config", config.toString()));
  }

  private static Map<String, String> settings(PostgresProcess pg, KafkaProcess kafka) {
    String prefix = UniqueNames.topic("svc").replace('-', '_');
    Map<String, String> settings = new LinkedHashMap<>();
    settings.putAll(
        OutboxRelayConfig.settings(
            kafka.bootstrapServers(), pg.jdbcUrl("postgres"), "postgres", "postgres", prefix));
    settings.put("relay.http.port", "0");
    settings.put(OutboxRelayConfig.STARTUP_BACKOFF_MAX_MS, "1000");
    return settings;
  }

  private static int count(String text, String part) {
    int n = 0;
    for (int i = text.indexOf(part); i >= 0; i = text.indexOf(part, i + 1)) {
      n++;
    }
    return n;
  }

  private static void write(PostgresProcess pg, String account, int amount) throws Exception {
    try (Connection c = pg.dataSource("postgres").getConnection()) {
      c.setAutoCommit(false);
      OutboxWriter.create()
          .write(
              c,
              OutboxEvent.builder()
                  .aggregate("account", account)
                  .eventType("CreditRequested")
                  .json("{\"amount\":" + amount + "}")
                  .build());
      c.commit();
    }
  }
}
