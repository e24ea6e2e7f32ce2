package dev.courier.backpressure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.courier.testkit.CourierInfraTest;
import dev.courier.testkit.KafkaBroker;
import dev.courier.testkit.RawHttp;
import dev.courier.testkit.UniqueNames;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Set;
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
                MonitorConfig.GROUPS_EXCLUDE_PATTERN, "^(?!" + group + "$).*",
                MonitorConfig.TICK_INTERVAL_MS, "200",
                MonitorConfig.WINDOW_MS, "2000",
                MonitorConfig.HTTP_PORT, "0"));
    try (MonitorService service = MonitorService.create(config.originals(), Clock.systemUTC())) {
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
      assertThat(
              RawHttp.ruleViolations(
                  service.port(),
                  Set.of(
                      "/health",
                      "/health/ready",
                      "/health/live",
                      "/metrics",
                      "/v1/groups",
                      "/v1/groups/")))
          .isEmpty();
      assertThat(RawHttp.send(service.port(), "DELETE /v1/groups/" + group + " HTTP/1.1").status())
          .isEqualTo(405);
      assertThat(RawHttp.send(service.port(), "GET /v1/groups/" + group + " HTTP/1.1").status())
          .isEqualTo(200);

      String metrics = get(base + "/metrics").body();
      String labels = "group=\"" + group + "\",partition=\"1\",topic=\"" + topic + "\"";
      assertThat(metrics)
          .contains("courier_monitor_group_lag{" + labels + "} 4.0")
          .contains(
              "courier_monitor_group_lag_seconds{"
                  + labels.replace(",partition", ",method=\"exact\",partition"))
          .contains("courier_monitor_group_sum_lag{group=\"" + group + "\"} 4.0")
          .contains("courier_monitor_status{group=\"" + group + "\"}")
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

  /**
   * Two replicas, as the k8s manifest runs them: each reads the cluster itself, and for the same
   * committed offsets both serve the same lag, offsets and oldest record (its age measured at each
   * replica's own tick, so the record's time, observedAt minus the age, is what agrees).
   */
  @Test
  void twoReplicasServeTheSameFigures(KafkaBroker kafka) throws Exception {
    String topic = UniqueNames.topic("replicas");
    String group = UniqueNames.group("replicas");
    kafka.createTopic(topic, 3);
    LagMonitorIT.produce(kafka, topic, 3, 6, Instant.now().minusSeconds(120));
    LagMonitorIT.commit(
        kafka.admin(),
        group,
        Map.of(
            new TopicPartition(topic, 0), 1L,
            new TopicPartition(topic, 1), 3L,
            new TopicPartition(topic, 2), 6L));
    MonitorConfig config =
        new MonitorConfig(
            Map.of(
                MonitorConfig.BOOTSTRAP_SERVERS, kafka.bootstrapServers(),
                MonitorConfig.GROUPS, group,
                MonitorConfig.TICK_INTERVAL_MS, "300",
                MonitorConfig.WINDOW_MS, "3000",
                MonitorConfig.HTTP_PORT, "0"));
    try (MonitorService a = MonitorService.create(config.originals(), Clock.systemUTC());
        MonitorService b = MonitorService.create(config.originals(), Clock.systemUTC())) {
      JsonNode fromA = detail(a, group);
      JsonNode fromB = detail(b, group);
      assertThat(fromA.get("sumLag").asLong()).isEqualTo(fromB.get("sumLag").asLong()).isEqualTo(8);
      for (int i = 0; i < 3; i++) {
        JsonNode pa = fromA.get("partitions").get(i);
        JsonNode pb = fromB.get("partitions").get(i);
        for (String field : new String[] {"partition", "currentOffset", "logEndOffset", "lag"}) {
          assertThat(pa.get(field)).as(field).isEqualTo(pb.get(field));
        }
        assertThat(recordTime(fromA, pa)).isEqualTo(recordTime(fromB, pb));
      }
    }
  }

  private JsonNode detail(MonitorService service, String group) throws Exception {
    String uri = "http://localhost:" + service.port() + "/v1/groups/" + group;
    return new ObjectMapper()
        .readTree(
            await()
                .atMost(Duration.ofSeconds(30))
                .until(() -> get(uri), r -> r.statusCode() == 200)
                .body());
  }

  /** When the oldest waiting record was written, as a replica saw it; 0 when nothing waits. */
  private static long recordTime(JsonNode group, JsonNode partition) {
    double age = partition.get("oldestAgeSeconds").asDouble();
    return age == 0
        ? 0
        : Instant.parse(group.get("observedAt").asText()).toEpochMilli() - Math.round(age * 1000);
  }

  private HttpResponse<String> get(String uri) throws Exception {
    return http.send(
        HttpRequest.newBuilder(URI.create(uri)).GET().build(),
        HttpResponse.BodyHandlers.ofString());
  }
}
