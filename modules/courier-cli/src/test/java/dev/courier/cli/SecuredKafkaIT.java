package dev.courier.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.courier.core.CourierHeaders;
import dev.courier.outbox.OutboxEvent;
import dev.courier.outbox.OutboxRelayConfig;
import dev.courier.outbox.OutboxWriter;
import dev.courier.testkit.CourierInfraTest;
import dev.courier.testkit.KafkaProcess;
import dev.courier.testkit.RecordingEndpoint;
import dev.courier.testkit.SettingsFile;
import dev.courier.testkit.TestDatabase;
import dev.courier.testkit.UniqueNames;
import dev.courier.testkit.WorkerProcess;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.resource.ResourceType;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;

/**
 * The three services against a broker that authenticates with SASL/SCRAM and enforces ACLs, each
 * with a principal of its own: with the right credentials they work, with wrong ones they exit 2
 * naming the setting that holds them, and every {@code kafka.*} setting reaches every client (a
 * client that missed one would be refused).
 */
@CourierInfraTest
class SecuredKafkaIT {

  private static final Duration TIMEOUT = CourierProcess.TIMEOUT;

  @Test
  void relayMonitorAndRetryWorkerWorkWithTheirCredentialsAndExitTwoWithWrongOnes(TestDatabase db)
      throws Exception {
    try (KafkaProcess kafka = KafkaProcess.scram().start();
        RecordingEndpoint endpoint = RecordingEndpoint.start(Duration.ZERO, (k, n) -> 204)) {
      String prefix = UniqueNames.topic("sec").replace('-', '_');
      String work = UniqueNames.topic("secwork");
      String group = UniqueNames.group("secwork");
      kafka.createTopic(prefix + ".account", 1);
      kafka.createTopic(work, 1);
      kafka.addUser("relay", "relay-secret");
      kafka.allow(
          "relay",
          ResourceType.TOPIC,
          prefix,
          AclOperation.CREATE,
          AclOperation.WRITE,
          AclOperation.READ,
          AclOperation.DESCRIBE,
          AclOperation.DESCRIBE_CONFIGS);
      // Its positions are written in transactions under <relay name>.positions.<prefix>-cdc.
      kafka.allow(
          "relay",
          ResourceType.TRANSACTIONAL_ID,
          prefix,
          AclOperation.WRITE,
          AclOperation.DESCRIBE);
      kafka.addUser("worker", "worker-secret");
      kafka.allow(
          "worker",
          ResourceType.TOPIC,
          work,
          AclOperation.CREATE,
          AclOperation.WRITE,
          AclOperation.READ,
          AclOperation.DESCRIBE);
      kafka.allow("worker", ResourceType.GROUP, group, AclOperation.READ, AclOperation.DESCRIBE);
      kafka.addUser("monitor", "monitor-secret");
      kafka.allow("monitor", ResourceType.TOPIC, work, AclOperation.DESCRIBE, AclOperation.READ);
      kafka.allow("monitor", ResourceType.GROUP, group, AclOperation.DESCRIBE);

      Map<String, String> relay = new LinkedHashMap<>();
      relay.putAll(
          OutboxRelayConfig.settings(
              kafka.bootstrapServers(), db.jdbcUrl(), db.username(), db.password(), prefix));
      relay.put("relay.http.port", "0");
      Map<String, String> worker = new LinkedHashMap<>();
      worker.put("bootstrap.servers", kafka.bootstrapServers());
      worker.put("retry.group.id", group);
      worker.put("retry.topic", work);
      worker.put("retry.worker.http.port", "0");
      worker.put("retry.worker.target.url", endpoint.url());
      Map<String, String> monitor = new LinkedHashMap<>();
      monitor.put("bootstrap.servers", kafka.bootstrapServers());
      monitor.put("monitor.groups", group);
      monitor.put("monitor.tick.interval.ms", "500");
      monitor.put("monitor.http.port", "0");

      // Wrong passwords: a wrong setting, named, exit 2.
      for (String[] service :
          new String[][] {{"relay", "relay"}, {"retry-worker", "worker"}, {"monitor", "monitor"}}) {
        Map<String, String> settings =
            switch (service[0]) {
              case "relay" -> relay;
              case "retry-worker" -> worker;
              default -> monitor;
            };
        try (WorkerProcess refused =
            start(service[0], login(settings, service[1], "not-the-password"))) {
          assertThat(refused.awaitExit(TIMEOUT)).as(service[0]).isEqualTo(Courier.CONFIG_ERROR);
          assertThat(refused.output())
              .as(service[0])
              .contains("configuration error")
              .contains("kafka.sasl.jaas.config")
              .contains("refused the credentials");
        }
      }

      try (WorkerProcess relayProcess = start("relay", login(relay, "relay", "relay-secret"));
          WorkerProcess workerProcess =
              start("retry-worker", login(worker, "worker", "worker-secret"));
          WorkerProcess monitorProcess =
              start("monitor", login(monitor, "monitor", "monitor-secret"))) {
        for (WorkerProcess p : List.of(relayProcess, workerProcess, monitorProcess)) {
          CourierProcess.awaitHealthy(CourierProcess.port(p));
        }
        try (Connection c = db.connection()) {
          c.setAutoCommit(false);
          OutboxWriter.create()
              .write(
                  c,
                  OutboxEvent.builder()
                      .aggregate("account", "acc-1")
                      .eventType("CreditRequested")
                      .json("{\"amount\":1}")
                      .build());
          c.commit();
        }
        assertThat(kafka.readValues(prefix + ".account", 1, Duration.ZERO))
            .containsExactly("{\"amount\":1}");
        produce(kafka, work, "op-1");
        await().atMost(TIMEOUT).until(() -> endpoint.calls("op-1") == 1);
        int monitorPort = CourierProcess.port(monitorProcess);
        await()
            .atMost(TIMEOUT)
            .untilAsserted(
                () ->
                    assertThat(CourierProcess.get(monitorPort, "/v1/groups/" + group).body())
                        .contains("\"sumLag\":0")
                        .contains(work));
        for (WorkerProcess p : List.of(relayProcess, workerProcess, monitorProcess)) {
          assertThat(p.terminate(TIMEOUT)).isEqualTo(WorkerProcess.SIGTERM_EXIT_STATUS);
        }
      }
    }
  }

  private static Map<String, String> login(Map<String, String> base, String user, String password) {
    Map<String, String> s = new LinkedHashMap<>(base);
    s.put("kafka.security.protocol", "SASL_PLAINTEXT");
    s.put("kafka.sasl.mechanism", "SCRAM-SHA-256");
    s.put("kafka.sasl.jaas.config", KafkaProcess.jaas(user, password));
    return s;
  }

  private static WorkerProcess start(String command, Map<String, String> settings) {
    return CourierProcess.jar(
        command, Map.of(), List.of(command, "--config", SettingsFile.write(settings).toString()));
  }

  private static void produce(KafkaProcess kafka, String topic, String op) throws Exception {
    Map<String, Object> config =
        new HashMap<>(kafka.clientSettings(KafkaProcess.SUPER_USER, KafkaProcess.SUPER_PASSWORD));
    try (KafkaProducer<String, String> producer =
        new KafkaProducer<>(config, new StringSerializer(), new StringSerializer())) {
      ProducerRecord<String, String> r = new ProducerRecord<>(topic, "k", "{}");
      r.headers().add(CourierHeaders.ID, op.getBytes(StandardCharsets.UTF_8));
      producer.send(r).get(30, TimeUnit.SECONDS);
    }
  }
}
