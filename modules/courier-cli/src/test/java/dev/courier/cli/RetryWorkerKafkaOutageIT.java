package dev.courier.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.courier.core.CourierHeaders;
import dev.courier.testkit.KafkaProcess;
import dev.courier.testkit.RecordingEndpoint;
import dev.courier.testkit.SettingsFile;
import dev.courier.testkit.UniqueNames;
import dev.courier.testkit.WorkerProcess;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;

/**
 * The packaged retry worker with its broker killed under it: {@code /health} turns 503 naming Kafka
 * while the broker is away (where it answered 200 "consuming" before), stays live, and the worker
 * consumes again once the broker is back on its port.
 */
class RetryWorkerKafkaOutageIT {

  private static final Duration TIMEOUT = CourierProcess.TIMEOUT;

  @Test
  void readinessSaysKafkaIsGoneWhileItIsAndTheWorkerGoesOnAfterwards() throws Exception {
    try (KafkaProcess kafka = KafkaProcess.plaintext().start();
        RecordingEndpoint endpoint = RecordingEndpoint.start(Duration.ZERO, (key, call) -> 204)) {
      String topic = UniqueNames.topic("gone");
      kafka.createTopic(topic, 1);
      try (WorkerProcess worker =
          worker(kafka.bootstrapServers(), UniqueNames.group("gone"), topic, endpoint.url())) {
        int port = CourierProcess.port(worker);
        CourierProcess.awaitHealthy(port);
        produce(kafka, topic, "op-1");
        await().atMost(TIMEOUT).until(() -> endpoint.totalCalls() >= 1);

        kafka.kill();
        HttpResponse<String> gone =
            CourierProcess.awaitHealth(port, 503, "no connection to Kafka at");
        assertThat(gone.body()).contains(kafka.bootstrapServers());
        assertThat(CourierProcess.get(port, "/health/live").statusCode())
            .as("waiting out an outage is healthy")
            .isEqualTo(200);

        kafka.start();
        CourierProcess.awaitHealth(port, 200, "consuming");
        produce(kafka, topic, "op-2");
        await().atMost(TIMEOUT).until(() -> endpoint.totalCalls() >= 2);
        assertThat(endpoint.keys()).contains("op-1", "op-2");
        assertThat(worker.terminate(TIMEOUT)).isEqualTo(WorkerProcess.SIGTERM_EXIT_STATUS);
      }
    }
  }

  /**
   * A partition is not a dead broker: open connections hang and new ones are accepted, so the
   * consumer keeps its connections and nothing is refused. The worker must still say on /health
   * that it cannot reach Kafka, stay live, and once the network heals handle what was produced
   * meanwhile, each record once.
   */
  @Test
  void cutOffByAPartitionItSaysSoAndOnceHealedHandlesWhatCameMeanwhileOnce() throws Exception {
    try (KafkaProcess kafka = KafkaProcess.withProxiedListener().start();
        RecordingEndpoint endpoint = RecordingEndpoint.start(Duration.ZERO, (key, call) -> 204)) {
      String topic = UniqueNames.topic("cut");
      String group = UniqueNames.group("cut");
      kafka.createTopic(topic, 1);
      String proxied = kafka.proxiedClientSettings().get("bootstrap.servers");
      try (WorkerProcess worker = worker(proxied, group, topic, endpoint.url())) {
        int port = CourierProcess.port(worker);
        CourierProcess.awaitHealthy(port);
        produce(kafka, topic, "op-1");
        await().atMost(TIMEOUT).until(() -> kafka.broker().committed(group, topic, 0) == 1);

        kafka.proxy().partition();
        // The business goes on beside the cut-off worker, over the broker's other listener.
        produce(kafka, topic, "op-2");
        produce(kafka, topic, "op-3");
        HttpResponse<String> cut = CourierProcess.awaitHealth(port, 503, "no answer from Kafka");
        assertThat(cut.body()).contains("network partition or a frozen broker");
        assertThat(CourierProcess.get(port, "/health/live").statusCode()).isEqualTo(200);
        assertThat(endpoint.keys()).containsExactly("op-1");

        kafka.proxy().heal();
        CourierProcess.awaitHealth(port, 200, "consuming");
        await().atMost(TIMEOUT).until(() -> kafka.broker().committed(group, topic, 0) == 3);
        assertThat(endpoint.keys()).containsExactlyInAnyOrder("op-1", "op-2", "op-3");
        assertThat(endpoint.totalCalls()).as("each record handled once").isEqualTo(3);
        assertThat(worker.terminate(TIMEOUT)).isEqualTo(WorkerProcess.SIGTERM_EXIT_STATUS);
      }
    }
  }

  private static WorkerProcess worker(
      String bootstrapServers, String group, String topic, String url) {
    Map<String, String> settings = new LinkedHashMap<>();
    settings.put("bootstrap.servers", bootstrapServers);
    settings.put("retry.group.id", group);
    settings.put("retry.topic", topic);
    settings.put("retry.worker.http.port", "0");
    settings.put("retry.worker.target.url", url);
    // Silence is judged against the client's request timeout: 5 s, not 30, keeps the test short.
    settings.put("kafka.request.timeout.ms", "5000");
    Path config = SettingsFile.write(settings);
    return CourierProcess.jar(
        "worker", Map.of(), List.of("retry-worker", "--config", config.toString()));
  }

  private static void produce(KafkaProcess kafka, String topic, String op) throws Exception {
    Map<String, Object> config =
        Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
    try (KafkaProducer<String, String> producer =
        new KafkaProducer<>(config, new StringSerializer(), new StringSerializer())) {
      ProducerRecord<String, String> r = new ProducerRecord<>(topic, "acc", "{}");
      r.headers().add(CourierHeaders.ID, op.getBytes(StandardCharsets.UTF_8));
      producer.send(r).get();
    }
  }
}
