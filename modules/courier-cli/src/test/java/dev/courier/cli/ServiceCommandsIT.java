package dev.courier.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.sun.net.httpserver.HttpServer;
import dev.courier.core.CourierHeaders;
import dev.courier.outbox.OutboxEvent;
import dev.courier.outbox.OutboxRelayConfig;
import dev.courier.outbox.OutboxWriter;
import dev.courier.retry.DltFilter;
import dev.courier.retry.DltRecord;
import dev.courier.retry.DltReplayer;
import dev.courier.retry.RetryTopics;
import dev.courier.testkit.CourierInfraTest;
import dev.courier.testkit.KafkaBroker;
import dev.courier.testkit.RawHttp;
import dev.courier.testkit.SettingsFile;
import dev.courier.testkit.TestDatabase;
import dev.courier.testkit.UniqueNames;
import dev.courier.testkit.WorkerProcess;
import java.net.InetSocketAddress;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;

/**
 * Each service subcommand of the packaged {@code courier.jar}, in its own JVM against the testkit's
 * infrastructure: it does its work, serves /health and /metrics, and stops cleanly on SIGTERM.
 */
@CourierInfraTest
class ServiceCommandsIT {

  private static final Duration TIMEOUT = Duration.ofSeconds(90);

  /** The routes the relay and the retry worker serve, under the rules of every service. */
  private static final Set<String> SERVICE_ROUTES =
      Set.of("/health", "/health/ready", "/health/live", "/metrics");

  @Test
  void relayPublishesServesAndStopsOnSigterm(KafkaBroker kafka, TestDatabase db) throws Exception {
    String prefix = UniqueNames.topic("svc").replace('-', '_');
    List<String> args = new ArrayList<>(List.of("relay", "--set", "relay.http.port=0"));
    OutboxRelayConfig.settings(
            kafka.bootstrapServers(), db.jdbcUrl(), db.username(), db.password(), prefix)
        .forEach((k, v) -> args.addAll(List.of("--set", k + "=" + v)));
    try (WorkerProcess relay = courier("relay", Map.of(), args)) {
      int port = port(relay);
      awaitHealthy(port);
      OutboxEvent event =
          OutboxEvent.builder()
              .aggregate("account", "acc-1")
              .eventType("CreditRequested")
              .json("{\"amount\":10}")
              .build();
      try (Connection c = db.connection()) {
        c.setAutoCommit(false);
        OutboxWriter.create().write(c, event);
        c.commit();
      }
      List<ConsumerRecord<String, String>> records =
          kafka.readStrings(prefix + ".account", 1, TIMEOUT);
      assertThat(records).hasSize(1);
      assertThat(
              new String(
                  records.get(0).headers().lastHeader(CourierHeaders.ID).value(),
                  StandardCharsets.UTF_8))
          .isEqualTo(event.eventId().toString());
      assertThat(get(port, "/metrics").body()).contains("jvm_memory_used_bytes");
      assertThat(RawHttp.ruleViolations(port, SERVICE_ROUTES)).isEmpty();

      assertThat(relay.terminate(TIMEOUT)).isEqualTo(WorkerProcess.SIGTERM_EXIT_STATUS);
      assertThat(relay.output()).contains("courier relay: stopped cleanly");
      assertThat(slotActive(db, prefix + "_slot")).as("replication slot released").isFalse();
    }
  }

  @Test
  void monitorWatchesGroupsFromEnvironmentSettings(KafkaBroker kafka) throws Exception {
    String topic = UniqueNames.topic("svc");
    String group = UniqueNames.group("svc");
    kafka.createTopic(topic, 1);
    try (KafkaProducer<String, String> producer =
        new KafkaProducer<>(
            kafka.producerConfig(), new StringSerializer(), new StringSerializer())) {
      for (int i = 0; i < 5; i++) {
        producer.send(new ProducerRecord<>(topic, "k", "v" + i)).get(30, TimeUnit.SECONDS);
      }
    }
    kafka
        .admin()
        .alterConsumerGroupOffsets(
            group,
            Map.of(
                new org.apache.kafka.common.TopicPartition(topic, 0),
                new org.apache.kafka.clients.consumer.OffsetAndMetadata(2)))
        .all()
        .get(30, TimeUnit.SECONDS);
    // Settings from the environment, as a container gets them.
    Map<String, String> env =
        Map.of(
            "COURIER_BOOTSTRAP_SERVERS",
            kafka.bootstrapServers(),
            "COURIER_MONITOR_GROUPS",
            group,
            "COURIER_MONITOR_TICK_INTERVAL_MS",
            "500",
            "COURIER_MONITOR_HTTP_PORT",
            "0");
    try (WorkerProcess monitor = courier("monitor", env, List.of("monitor"))) {
      int port = port(monitor);
      awaitHealthy(port);
      await()
          .atMost(TIMEOUT)
          .untilAsserted(
              () ->
                  assertThat(get(port, "/metrics").body())
                      .containsPattern("courier_monitor_group_sum_lag\\{[^}]*" + group + "[^}]*} 3")
                      .contains("jvm_memory_used_bytes"));
      assertThat(get(port, "/v1/groups/" + group).body()).contains("\"sumLag\":3");
      assertThat(monitor.terminate(TIMEOUT)).isEqualTo(WorkerProcess.SIGTERM_EXIT_STATUS);
      assertThat(monitor.output()).contains("courier monitor: stopped cleanly");
    }
  }

  @Test
  void retryWorkerRetriesAnUnavailableEndpointAndDeadLettersARefusal(
      KafkaBroker kafka, TestDatabase db, Admin admin) throws Exception {
    String topic = UniqueNames.topic("svc");
    String group = UniqueNames.group("svc");
    kafka.createTopic(topic, 1);
    List<String> keys = new CopyOnWriteArrayList<>();
    AtomicInteger unavailable = new AtomicInteger(1);
    HttpServer endpoint = HttpServer.create(new InetSocketAddress("localhost", 0), 0);
    endpoint.createContext(
        "/credits",
        ex -> {
          String body = new String(ex.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
          keys.add(ex.getRequestHeaders().getFirst("Idempotency-Key"));
          int status = body.contains(":-") ? 422 : unavailable.getAndDecrement() > 0 ? 503 : 204;
          ex.sendResponseHeaders(status, -1);
          ex.close();
        });
    endpoint.start();
    Map<String, String> settings = new LinkedHashMap<>();
    settings.put("bootstrap.servers", kafka.bootstrapServers());
    settings.put("group.id", group);
    settings.put("retry.topic", topic);
    settings.put("retry.max.attempts", "3");
    settings.put("retry.backoff.type", "fixed");
    settings.put("retry.backoff.initial.ms", "300");
    settings.put("retry.backoff.max.ms", "300");
    settings.put("retry.worker.http.port", "0");
    settings.put(
        "retry.worker.target.url",
        "http://localhost:" + endpoint.getAddress().getPort() + "/credits");
    Path config = SettingsFile.write(settings);
    try (WorkerProcess worker =
        courier("retry-worker", Map.of(), List.of("retry-worker", "--config", config.toString()))) {
      int port = port(worker);
      awaitHealthy(port);
      assertThat(worker.output()).contains("Retry contract of group " + group);
      send(kafka, topic, "op-1", "acc-1:10");
      send(kafka, topic, "op-2", "acc-2:-5");
      await().atMost(TIMEOUT).until(() -> keys.size() >= 3);
      assertThat(keys).containsExactlyInAnyOrder("op-1", "op-1", "op-2");
      String dlt = new RetryTopics(topic, group, 1).deadLetter();
      try (DltReplayer replayer = DltReplayer.create(kafka.clientSettings(), db.dataSource())) {
        List<DltRecord> dead =
            await()
                .atMost(TIMEOUT)
                .until(() -> replayer.list(dlt, DltFilter.all()), l -> l.size() == 1);
        assertThat(dead.get(0).operationKey()).contains("op-2");
        assertThat(dead.get(0).reason()).isEqualTo("permanent");
        assertThat(dead.get(0).message()).contains("HTTP 422");
      }
      // Reading needs no audit database; changing does, and says so naming the key.
      List<String> cluster = List.of("--set", "bootstrap.servers=" + kafka.bootstrapServers());
      CourierCommandTest.Run list =
          CourierCommandTest.run(
              withSettings(List.of("dlt", "list", dlt, "--operation-key", "op-2"), cluster));
      assertThat(list.status()).as(list.err()).isZero();
      assertThat(list.out()).contains("operation-key=op-2").contains("1 dead letter(s)");
      CourierCommandTest.Run none =
          CourierCommandTest.run(
              withSettings(List.of("dlt", "list", dlt, "--record-key", "op-2"), cluster));
      assertThat(none.out()).as("op-2 is the operation key, not the record key").contains("0 dead");
      CourierCommandTest.Run dry = CourierCommandTest.run(dltReplay(dlt, cluster));
      assertThat(dry.status()).as(dry.err()).isZero();
      assertThat(dry.out())
          .startsWith("DRY RUN: nothing is sent.")
          .contains("Plan: replay 1 record(s)")
          .contains("Parked records not checked: audit.jdbc.url is not set");
      CourierCommandTest.Run unaudited =
          CourierCommandTest.run(dltReplay(dlt, cluster, "--execute", "--reason", "r"));
      assertThat(unaudited.status()).isEqualTo(2);
      assertThat(unaudited.err()).contains("audit.jdbc.url");
      // courier dlt replay: to the group's own first tier unless told otherwise.
      List<String> operator =
          List.of(
              "--set", "bootstrap.servers=" + kafka.bootstrapServers(),
              "--set", "audit.jdbc.url=" + db.jdbcUrl(),
              "--set", "audit.jdbc.user=" + db.username(),
              "--set", "audit.jdbc.password=" + db.password());
      CourierCommandTest.Run original =
          CourierCommandTest.run(dltReplay(dlt, operator, "--to-original-topics"));
      assertThat(original.status()).as(original.err()).isZero();
      assertThat(original.out())
          .contains("to their original topics (every group reading them receives them again)")
          .contains("Nothing sent");
      CourierCommandTest.Run replay =
          CourierCommandTest.run(
              dltReplay(dlt, operator, "--execute", "--reason", "limit raised", "--actor", "ops"));
      assertThat(replay.status()).as(replay.err()).isZero();
      assertThat(replay.out())
          .startsWith("REPLAYING (audited")
          .doesNotContain("DRY RUN")
          .contains("to the first tier of the group that dead-lettered each");
      await().atMost(TIMEOUT).until(() -> keys.size() >= 4);
      assertThat(keys).as("the worker's group received it again").endsWith("op-2");
      assertThat(get(port, "/metrics").body()).contains("courier_retry");
      assertThat(RawHttp.ruleViolations(port, SERVICE_ROUTES)).isEmpty();

      assertThat(worker.terminate(TIMEOUT)).isEqualTo(WorkerProcess.SIGTERM_EXIT_STATUS);
      assertThat(worker.output()).contains("courier retry-worker: stopped cleanly");
      // A clean close leaves the group at once instead of after the session timeout.
      assertThat(
              admin
                  .describeConsumerGroups(List.of(group))
                  .describedGroups()
                  .get(group)
                  .get(30, TimeUnit.SECONDS)
                  .members())
          .isEmpty();
    } finally {
      endpoint.stop(0);
    }
  }

  @Test
  void aBadSettingStopsTheServiceAtStartNamingTheKey(KafkaBroker kafka) {
    try (WorkerProcess monitor =
        courier(
            "monitor",
            Map.of(),
            List.of(
                "monitor",
                "--set",
                "bootstrap.servers=" + kafka.bootstrapServers(),
                "--set",
                "monitor.oldest.age.mode=guess"))) {
      assertThat(monitor.awaitExit(TIMEOUT)).isEqualTo(Courier.CONFIG_ERROR);
      assertThat(monitor.output())
          .contains("configuration error")
          .contains("monitor.oldest.age.mode");
    }
  }

  private static WorkerProcess courier(String name, Map<String, String> env, List<String> args) {
    return CourierProcess.jar(name, env, args);
  }

  private static int port(WorkerProcess process) {
    return CourierProcess.port(process);
  }

  private static void awaitHealthy(int port) {
    CourierProcess.awaitHealthy(port);
  }

  private static HttpResponse<String> get(int port, String path) throws Exception {
    return CourierProcess.get(port, path);
  }

  private static void send(KafkaBroker kafka, String topic, String key, String value)
      throws Exception {
    try (KafkaProducer<String, String> producer =
        new KafkaProducer<>(
            kafka.producerConfig(), new StringSerializer(), new StringSerializer())) {
      ProducerRecord<String, String> r = new ProducerRecord<>(topic, value.split(":")[0], value);
      r.headers().add(CourierHeaders.ID, key.getBytes(StandardCharsets.UTF_8));
      producer.send(r).get(30, TimeUnit.SECONDS);
    }
  }

  private static boolean slotActive(TestDatabase db, String slot) throws Exception {
    try (Connection c = db.connection();
        var ps =
            c.prepareStatement("SELECT active FROM pg_replication_slots WHERE slot_name = ?")) {
      ps.setString(1, slot);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() && rs.getBoolean(1);
      }
    }
  }

  private static String[] dltReplay(String dlt, List<String> operator, String... more) {
    List<String> args = new java.util.ArrayList<>(List.of("dlt", "replay", dlt));
    args.addAll(List.of(more));
    return withSettings(args, operator);
  }

  private static String[] withSettings(List<String> command, List<String> settings) {
    List<String> args = new java.util.ArrayList<>(command);
    args.addAll(settings);
    return args.toArray(String[]::new);
  }
}
