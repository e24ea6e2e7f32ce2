package dev.courier.backpressure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.courier.testkit.CourierInfraTest;
import dev.courier.testkit.HostsFile;
import dev.courier.testkit.JvmWorker;
import dev.courier.testkit.KafkaBroker;
import dev.courier.testkit.UniqueNames;
import dev.courier.testkit.WorkerProcess;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The library's {@link MonitorService} started before its broker's name exists, as in a compose
 * file or a cluster whose Kafka pods are not up yet: Kafka's clients cannot be built then, so it
 * answers /health with WAITING and the reason instead of failing to start, and watches once the
 * name resolves. Its JVM reads names from the test's {@link HostsFile}, which gains the broker's
 * name midway.
 */
@CourierInfraTest
class MonitorBootstrapNameIT {

  private static final Duration TIMEOUT = Duration.ofSeconds(60);
  private static final String NAME = "courier-broker.invalid";
  private final HttpClient http = HttpClient.newHttpClient();

  @TempDir Path dir;

  @Test
  void aMonitorServiceWaitsForItsBrokersNameOnHealthAndThenWatches(KafkaBroker kafka)
      throws Exception {
    String topic = UniqueNames.topic("dns");
    String group = UniqueNames.group("dns");
    kafka.createTopic(topic, 1);
    LagMonitorIT.produce(kafka, topic, 1, 3, Instant.now().minusSeconds(60));
    LagMonitorIT.commit(kafka.admin(), group, Map.of(new TopicPartition(topic, 0), 1L));
    String first = kafka.bootstrapServers().split(",")[0];
    String host = first.substring(0, first.lastIndexOf(':'));
    HostsFile hosts = HostsFile.create(dir, host);

    try (WorkerProcess monitor =
        hosts
            .applyTo(JvmWorker.of(MonitorServiceMain.class))
            .args(
                MonitorConfig.BOOTSTRAP_SERVERS
                    + "="
                    + NAME
                    + first.substring(first.lastIndexOf(':')),
                MonitorConfig.GROUPS + "=" + group,
                MonitorConfig.TICK_INTERVAL_MS + "=200",
                MonitorConfig.HTTP_PORT + "=0")
            .start()) {
      String base = "http://localhost:" + port(monitor);
      HttpResponse<String> waiting = get(base + "/health");
      assertThat(waiting.statusCode()).isEqualTo(503);
      assertThat(waiting.body()).contains("WAITING").contains("resolves yet").contains(NAME);
      assertThat(get(base + "/health/live").statusCode()).isEqualTo(200);
      assertThat(monitor.output()).contains("waiting for Kafka: no address in");
      assertThat(monitor.isAlive()).isTrue();

      hosts.alias(NAME, host);
      await().atMost(TIMEOUT).until(() -> get(base + "/health").statusCode() == 200);
      HttpResponse<String> detail =
          await()
              .atMost(TIMEOUT)
              .until(() -> get(base + "/v1/groups/" + group), r -> r.statusCode() == 200);
      JsonNode lag = new ObjectMapper().readTree(detail.body());
      assertThat(lag.get("sumLag").asLong()).isEqualTo(2);
      assertThat(monitor.output()).contains("Kafka's name resolves: " + NAME);
    }
  }

  private static int port(WorkerProcess monitor) {
    Pattern line = Pattern.compile("^port (\\d+)$", Pattern.MULTILINE);
    Matcher m =
        await()
            .atMost(TIMEOUT)
            .until(() -> line.matcher(monitor.output()), matcher -> matcher.find());
    return Integer.parseInt(m.group(1));
  }

  private HttpResponse<String> get(String uri) throws Exception {
    return http.send(
        HttpRequest.newBuilder(URI.create(uri)).GET().build(),
        HttpResponse.BodyHandlers.ofString());
  }
}
