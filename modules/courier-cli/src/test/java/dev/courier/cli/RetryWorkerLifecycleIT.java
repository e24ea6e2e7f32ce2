package dev.courier.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.courier.core.CourierHeaders;
import dev.courier.testkit.CourierInfraTest;
import dev.courier.testkit.KafkaBroker;
import dev.courier.testkit.RecordingEndpoint;
import dev.courier.testkit.SettingsFile;
import dev.courier.testkit.UniqueNames;
import dev.courier.testkit.WorkerProcess;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;

/** How a retry-worker process ends: by SIGTERM with a backlog, and by a handler's Error. */
@CourierInfraTest
class RetryWorkerLifecycleIT {

  private static final Duration TIMEOUT = CourierProcess.TIMEOUT;

  @Test
  void sigtermWithABacklogCommitsLeavesAndTheNextWorkerRedoesNothing(KafkaBroker kafka)
      throws Exception {
    String topic = UniqueNames.topic("term");
    String group = UniqueNames.group("term");
    kafka.createTopic(topic, 1);
    produce(kafka, topic, 40);
    try (RecordingEndpoint endpoint =
        RecordingEndpoint.start(Duration.ofMillis(300), (key, call) -> 204)) {
      Path config = settings(kafka, topic, group, endpoint.url(), Map.of());
      try (WorkerProcess first = worker("first", config)) {
        await().atMost(TIMEOUT).until(() -> endpoint.totalCalls() >= 5);
        long signalled = System.nanoTime();
        assertThat(first.terminate(TIMEOUT)).isEqualTo(WorkerProcess.SIGTERM_EXIT_STATUS);
        Duration stopping = Duration.ofNanos(System.nanoTime() - signalled);
        assertThat(stopping)
            .as("well inside an orchestrator's 30 s grace")
            .isLessThan(Duration.ofSeconds(10));
        assertThat(first.output()).contains("courier retry-worker: stopped cleanly");
      }
      int done = endpoint.totalCalls();
      assertThat(kafka.members(group)).as("left the group at once").isZero();
      assertThat(kafka.committed(group, topic, 0)).as("what was done is committed").isEqualTo(done);
      long started = System.nanoTime();
      try (WorkerProcess next = worker("next", config)) {
        await().atMost(TIMEOUT).until(() -> endpoint.totalCalls() > done);
        assertThat(Duration.ofNanos(System.nanoTime() - started))
            .as("the next worker picks up within seconds")
            .isLessThan(Duration.ofSeconds(20));
        await().atMost(TIMEOUT).until(() -> endpoint.totalCalls() >= 40);
        assertThat(endpoint.keys()).hasSize(40);
        assertThat(endpoint.keys()).allMatch(k -> endpoint.calls(k) == 1, "handled once");
        assertThat(next.terminate(TIMEOUT)).isEqualTo(WorkerProcess.SIGTERM_EXIT_STATUS);
      }
    }
  }

  @Test
  void anErrorFromAHandlerPluginEndsTheServiceWithExitOneAndItsStack(KafkaBroker kafka)
      throws Exception {
    String topic = UniqueNames.topic("broken");
    kafka.createTopic(topic, 1);
    produce(kafka, topic, 3);
    Path config =
        settings(
            kafka,
            topic,
            UniqueNames.group("broken"),
            "http://localhost:9/unused",
            Map.of("retry.worker.handler.class", BrokenPluginHandler.class.getName()));
    try (WorkerProcess worker =
        CourierProcess.classpath(
            "broken", Map.of(), List.of("retry-worker", "--config", config.toString()))) {
      assertThat(worker.awaitExit(TIMEOUT)).isEqualTo(1);
      assertThat(worker.output())
          .contains(
              "courier retry-worker: failed: java.lang.NoClassDefFoundError: com/acme/billing/Invoice")
          .contains("at dev.courier.cli.BrokenPluginHandler.handle");
    }
  }

  private static WorkerProcess worker(String name, Path config) {
    WorkerProcess w =
        CourierProcess.jar(name, Map.of(), List.of("retry-worker", "--config", config.toString()));
    CourierProcess.awaitHealthy(CourierProcess.port(w));
    return w;
  }

  private static void produce(KafkaBroker kafka, String topic, int n) throws Exception {
    try (KafkaProducer<String, String> producer =
        new KafkaProducer<>(
            kafka.producerConfig(), new StringSerializer(), new StringSerializer())) {
      for (int i = 0; i < n; i++) {
        ProducerRecord<String, String> r = new ProducerRecord<>(topic, "acc", "{}");
        r.headers().add(CourierHeaders.ID, ("op-" + i).getBytes(StandardCharsets.UTF_8));
        producer.send(r);
      }
      producer.flush();
    }
  }

  private static Path settings(
      KafkaBroker kafka, String topic, String group, String url, Map<String, String> extra) {
    Map<String, String> settings = new LinkedHashMap<>();
    settings.put("bootstrap.servers", kafka.bootstrapServers());
    settings.put("retry.group.id", group);
    settings.put("retry.topic", topic);
    settings.put("retry.worker.http.port", "0");
    settings.put("retry.worker.target.url", url);
    settings.putAll(extra);
    return SettingsFile.write(settings);
  }
}
