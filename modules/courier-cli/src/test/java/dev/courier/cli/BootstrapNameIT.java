package dev.courier.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.courier.core.CourierHeaders;
import dev.courier.outbox.OutboxEvent;
import dev.courier.outbox.OutboxRelayConfig;
import dev.courier.outbox.OutboxWriter;
import dev.courier.testkit.CourierInfraTest;
import dev.courier.testkit.HostsFile;
import dev.courier.testkit.JvmWorker;
import dev.courier.testkit.KafkaBroker;
import dev.courier.testkit.RecordingEndpoint;
import dev.courier.testkit.SettingsFile;
import dev.courier.testkit.TestDatabase;
import dev.courier.testkit.UniqueNames;
import dev.courier.testkit.WorkerProcess;
import java.net.URI;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A service started before the name of its broker exists, as in a compose file or a cluster where
 * Kafka's pods are not up yet: Kafka's clients cannot even be built then, and the service must wait
 * with the reason on /health instead of exiting. The JVM reads its names from a hosts file of the
 * test's ({@link HostsFile}), which gains the broker's name midway.
 */
@CourierInfraTest
class BootstrapNameIT {

  private static final Duration TIMEOUT = CourierProcess.TIMEOUT;
  private static final String NAME = "courier-broker.invalid";

  @TempDir Path dir;

  @Test
  void aRelayWaitsForItsBrokersNameAndThenRelays(KafkaBroker kafka, TestDatabase db)
      throws Exception {
    HostsFile hosts = HostsFile.create(dir, host(kafka), jdbcHost(db));
    String prefix = UniqueNames.topic("dns").replace('-', '_');
    List<String> args = new ArrayList<>(List.of("relay", "--set", "relay.http.port=0"));
    Map<String, String> settings =
        OutboxRelayConfig.settings(
            named(kafka), db.jdbcUrl(), db.username(), db.password(), prefix);
    settings.put(OutboxRelayConfig.STARTUP_BACKOFF_MAX_MS, "1000");
    settings.forEach((k, v) -> args.addAll(List.of("--set", k + "=" + v)));
    try (WorkerProcess relay = start("relay", hosts, args)) {
      int port = CourierProcess.port(relay);
      HttpResponse<String> waiting = CourierProcess.awaitHealth(port, 503, "resolves yet");
      assertThat(waiting.body()).contains(NAME);
      assertThat(relay.isAlive()).isTrue();

      hosts.alias(NAME, host(kafka));
      CourierProcess.awaitHealthy(port);
      OutboxEvent event =
          OutboxEvent.builder()
              .aggregate("account", "acc-1")
              .eventType("Opened")
              .json("{}")
              .build();
      try (Connection c = db.connection()) {
        c.setAutoCommit(false);
        OutboxWriter.create().write(c, event);
        c.commit();
      }
      List<ConsumerRecord<String, String>> records =
          kafka.readStrings(prefix + ".account", 1, TIMEOUT);
      assertThat(records).hasSize(1);
      assertThat(relay.terminate(TIMEOUT)).isEqualTo(WorkerProcess.SIGTERM_EXIT_STATUS);
      assertThat(relay.output()).doesNotContain("Failed to construct kafka producer");
    }
  }

  @Test
  void aRetryWorkerWaitsForItsBrokersNameAndThenConsumes(KafkaBroker kafka) throws Exception {
    HostsFile hosts = HostsFile.create(dir, host(kafka));
    String topic = UniqueNames.topic("dns");
    kafka.createTopic(topic, 1);
    try (RecordingEndpoint endpoint = RecordingEndpoint.start(Duration.ZERO, (key, call) -> 204)) {
      Map<String, String> settings = new LinkedHashMap<>();
      settings.put("bootstrap.servers", named(kafka));
      settings.put("retry.group.id", UniqueNames.group("dns"));
      settings.put("retry.topic", topic);
      settings.put("retry.worker.http.port", "0");
      settings.put("retry.worker.target.url", endpoint.url());
      Path config = SettingsFile.write(settings);
      try (WorkerProcess worker =
          start("worker", hosts, List.of("retry-worker", "--config", config.toString()))) {
        int port = CourierProcess.port(worker);
        CourierProcess.awaitHealth(port, 503, "resolves yet");

        hosts.alias(NAME, host(kafka));
        CourierProcess.awaitHealthy(port);
        try (KafkaProducer<String, String> producer =
            new KafkaProducer<>(
                kafka.producerConfig(), new StringSerializer(), new StringSerializer())) {
          ProducerRecord<String, String> r = new ProducerRecord<>(topic, "acc", "{}");
          r.headers().add(CourierHeaders.ID, "op-1".getBytes(StandardCharsets.UTF_8));
          producer.send(r).get(30, TimeUnit.SECONDS);
        }
        await().atMost(TIMEOUT).until(() -> endpoint.totalCalls() >= 1);
        assertThat(endpoint.keys()).contains("op-1");
        assertThat(worker.terminate(TIMEOUT)).isEqualTo(WorkerProcess.SIGTERM_EXIT_STATUS);
      }
    }
  }

  @Test
  void aMonitorWaitsForItsBrokersNameAndThenWatches(KafkaBroker kafka) throws Exception {
    HostsFile hosts = HostsFile.create(dir, host(kafka));
    Map<String, String> settings = new LinkedHashMap<>();
    settings.put("bootstrap.servers", named(kafka));
    settings.put("monitor.groups", UniqueNames.group("dns"));
    settings.put("monitor.http.port", "0");
    Path config = SettingsFile.write(settings);
    try (WorkerProcess monitor =
        start("monitor", hosts, List.of("monitor", "--config", config.toString()))) {
      // Its clients cannot be built yet: it serves /health meanwhile, on the port it keeps.
      int port = CourierProcess.port(monitor);
      HttpResponse<String> waiting = CourierProcess.awaitHealth(port, 503, "resolves yet");
      assertThat(waiting.body()).contains("WAITING").contains(NAME);
      assertThat(monitor.output()).contains("waiting for Kafka: no address in");

      hosts.alias(NAME, host(kafka));
      CourierProcess.awaitHealthy(port);
      assertThat(monitor.output())
          .contains("courier monitor: serving /health, /metrics and /v1/groups on port " + port);
      assertThat(monitor.terminate(TIMEOUT)).isEqualTo(WorkerProcess.SIGTERM_EXIT_STATUS);
    }
  }

  private WorkerProcess start(String name, HostsFile hosts, List<String> args) {
    return hosts
        .applyTo(JvmWorker.of(Courier.class))
        .classpath(Path.of("target", "courier.jar").toAbsolutePath().toString())
        .name(name)
        .args(args.toArray(String[]::new))
        .start();
  }

  private static String jdbcHost(TestDatabase db) {
    return URI.create(db.jdbcUrl().substring("jdbc:".length())).getHost();
  }

  private static String host(KafkaBroker kafka) {
    String first = kafka.bootstrapServers().split(",")[0];
    return first.substring(0, first.lastIndexOf(':'));
  }

  /** The broker's address under a name the service cannot resolve yet. */
  private static String named(KafkaBroker kafka) {
    String first = kafka.bootstrapServers().split(",")[0];
    return NAME + first.substring(first.lastIndexOf(':'));
  }
}
