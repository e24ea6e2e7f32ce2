package dev.courier.backpressure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.courier.testkit.CourierInfraTest;
import dev.courier.testkit.KafkaBroker;
import dev.courier.testkit.UniqueNames;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/** The monitor service's HTTP surface, and admission control reading it remotely. */
@CourierInfraTest
class MonitorServiceIT {

  private final HttpClient http = HttpClient.newHttpClient();

  @Test
  void servesMetricsGroupsAndHealthAndFeedsRemoteAdmission(KafkaBroker kafka) throws Exception {
    String topic = UniqueNames.topic("svc");
    String group = UniqueNames.group("svc");
    kafka.createTopic(topic, 2);
    LagMonitorIT.produce(kafka, topic, 2, 5, Instant.now().minusSeconds(300));
    LagMonitorIT.commit(kafka.admin(), group, Map.of(new TopicPartition(topic, 1), 1L));
    MonitorConfig config =
        new MonitorConfig(
            Map.of(
                MonitorConfig.BOOTSTRAP_SERVERS, kafka.bootstrapServers(),
                MonitorConfig.GROUPS_EXCLUDE, "^(?!" + group + "$).*",
                MonitorConfig.TICK_MS, "200",
                MonitorConfig.WINDOW_MS, "2000",
                MonitorConfig.HTTP_PORT, "0"));
    try (MonitorService service = MonitorService.start(config, Clock.systemUTC())) {
      String base = "http://localhost:" + service.port();
      await()
          .atMost(Duration.ofSeconds(30))
          .until(() -> get(base + "/v1/groups/" + group).statusCode() == 200);

      assertThat(get(base + "/health").statusCode()).isEqualTo(200);
      JsonNode list = new ObjectMapper().readTree(get(base + "/v1/groups").body());
      assertThat(list.get("groups")).hasSize(1);
      assertThat(list.get("groups").get(0).get("group").asText()).isEqualTo(group);

      JsonNode detail = new ObjectMapper().readTree(get(base + "/v1/groups/" + group).body());
      assertThat(detail.get("sumLag").asLong()).isEqualTo(4);
      JsonNode partition = detail.get("partitions").get(0);
      assertThat(partition.get("partition").asInt()).isEqualTo(1);
      assertThat(partition.get("currentOffset").asLong()).isEqualTo(1);
      assertThat(partition.get("oldestAgeSeconds").asDouble()).isBetween(285.0, 300.0);
      assertThat(get(base + "/v1/groups/nobody").statusCode()).isEqualTo(404);

      String metrics = get(base + "/metrics").body();
      String labels = "group=\"" + group + "\",partition=\"1\",topic=\"" + topic + "\"";
      assertThat(metrics)
          .contains("courier_consumergroup_group_lag{" + labels + "} 4.0")
          .contains(
              "courier_consumergroup_group_lag_seconds{"
                  + labels.replace(",partition", ",method=\"exact\",partition"))
          .contains("courier_consumergroup_group_sum_lag{group=\"" + group + "\"} 4.0")
          .contains("courier_consumergroup_status{group=\"" + group + "\"}")
          .contains("courier_monitor_tick_seconds_count")
          .contains("courier_monitor_admin_requests");

      AdmissionController admission =
          AdmissionController.builder()
              .watch(BacklogSignals.http(URI.create(base), Duration.ofMillis(100)), group)
              .maxOldestAge(Duration.ofSeconds(60))
              .build();
      Admission refused = admission.tryAdmit(Work.ofBytes(1));
      assertThat(refused.reason()).contains(RejectReason.OLDEST_AGE);
      assertThat(refused.message()).contains(group);
    }
  }

  private HttpResponse<String> get(String uri) throws Exception {
    return http.send(
        HttpRequest.newBuilder(URI.create(uri)).GET().build(),
        HttpResponse.BodyHandlers.ofString());
  }
}
