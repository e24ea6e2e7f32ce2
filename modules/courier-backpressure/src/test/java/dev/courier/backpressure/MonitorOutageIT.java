package dev.courier.backpressure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.courier.testkit.KafkaProcess;
import dev.courier.testkit.UniqueNames;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;

/**
 * The monitor when Kafka itself goes away: the figures turn stale on /v1/groups and /health with
 * the reason, admission control follows its stated policy for unknown backlogs, and everything is
 * fresh again once Kafka is back. Cut off by a partition, its ticks still end and its figures catch
 * up with what was committed meanwhile. A partition whose only broker is gone costs only its own
 * row.
 */
class MonitorOutageIT {

  private static final Duration TIMEOUT = Duration.ofSeconds(90);
  private final HttpClient http = HttpClient.newHttpClient();
  private final ObjectMapper json = new ObjectMapper();

  @Test
  void withKafkaGoneTheFiguresTurnStaleAndAdmissionFollowsItsPolicy() throws Exception {
    try (KafkaProcess kafka = KafkaProcess.plaintext().start()) {
      String topic = UniqueNames.topic("stale");
      String group = UniqueNames.group("stale");
      kafka.createTopic(topic, 1);
      produce(kafka, topic, 5);
      commit(kafka, group, new TopicPartition(topic, 0), 2);
      try (MonitorService service =
          MonitorService.create(quickToStale(kafka.bootstrapServers(), group), Clock.systemUTC())) {
        String base = "http://localhost:" + service.port();
        await().atMost(TIMEOUT).until(() -> get(base + "/health").statusCode() == 200);
        BacklogSignals remote = BacklogSignals.http(URI.create(base), Duration.ofMillis(50));
        AdmissionController open =
            AdmissionController.builder()
                .watch(remote, group)
                .maxOldestAge(Duration.ofDays(1))
                .staleAfter(Duration.ofSeconds(2))
                .build();
        AdmissionController refusing =
            AdmissionController.builder()
                .watch(remote, group)
                .maxOldestAge(Duration.ofDays(1))
                .staleAfter(Duration.ofSeconds(2))
                .onUnknown(UnknownBacklog.REFUSE)
                .build();
        assertThat(refusing.tryAdmit(Work.ofBytes(1)).admitted()).isTrue();

        kafka.kill();
        HttpResponse<String> health =
            await().atMost(TIMEOUT).until(() -> get(base + "/health"), r -> r.statusCode() == 503);
        assertThat(health.body()).contains("STALE").contains("s old (monitor.stale.after.ms=2000)");
        // While the first tick without Kafka waits out its timeout the reason says so; once it
        // failed, why.
        await()
            .atMost(TIMEOUT)
            .until(() -> get(base + "/health").body(), b -> b.contains("the last tick failed"));
        assertThat(get(base + "/health/live").statusCode()).isEqualTo(200);
        JsonNode groups = json.readTree(get(base + "/v1/groups").body());
        assertThat(groups.get("stale").asBoolean()).isTrue();
        assertThat(groups.get("staleReason").asText()).contains("monitor.stale.after.ms");
        assertThat(groups.get("groups").get(0).get("stale").asBoolean()).isTrue();
        assertThat(open.tryAdmit(Work.ofBytes(1)).admitted())
            .as("a blind monitor does not stop the business by default")
            .isTrue();
        Admission refused = refusing.tryAdmit(Work.ofBytes(1));
        assertThat(refused.reason()).contains(RejectReason.NO_SIGNAL);
        assertThat(refused.message()).contains("s old");

        kafka.start();
        await().atMost(TIMEOUT).until(() -> get(base + "/health").statusCode() == 200);
        assertThat(json.readTree(get(base + "/v1/groups").body()).get("stale").asBoolean())
            .isFalse();
        await().atMost(TIMEOUT).until(() -> refusing.tryAdmit(Work.ofBytes(1)).admitted());
      }
    }
  }

  /**
   * A partition is not a dead broker: nothing is refused, requests and fetches simply hang. The
   * ticks must still end (with a failure, not a wait without end), and once the network heals the
   * figures must be the business's, not the ones from before the cut.
   */
  @Test
  void cutOffFromKafkaTheTicksStillEndAndTheFiguresCatchUpOnceHealed() throws Exception {
    try (KafkaProcess kafka = KafkaProcess.withProxiedListener().start()) {
      String topic = UniqueNames.topic("cut");
      String group = UniqueNames.group("cut");
      TopicPartition tp = new TopicPartition(topic, 0);
      kafka.createTopic(topic, 1);
      produce(kafka, topic, 5);
      commit(kafka, group, tp, 2);
      String proxied =
          kafka.proxiedClientSettings().get(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG);
      try (MonitorService service =
          MonitorService.create(quickToStale(proxied, group), Clock.systemUTC())) {
        String base = "http://localhost:" + service.port();
        await().atMost(TIMEOUT).until(() -> sumLag(base, group) == 3);

        kafka.proxy().partition();
        // The business goes on beside the cut-off monitor.
        produce(kafka, topic, 2);
        commit(kafka, group, tp, 6);
        HttpResponse<String> health =
            await().atMost(TIMEOUT).until(() -> get(base + "/health"), r -> r.statusCode() == 503);
        assertThat(health.body()).contains("STALE");
        await()
            .atMost(TIMEOUT)
            .until(() -> get(base + "/health").body(), b -> b.contains("the last tick failed"));
        assertThat(get(base + "/health/live").statusCode()).isEqualTo(200);
        assertThat(json.readTree(get(base + "/v1/groups").body()).get("stale").asBoolean())
            .isTrue();

        kafka.proxy().heal();
        await().atMost(TIMEOUT).until(() -> get(base + "/health").statusCode() == 200);
        await().atMost(TIMEOUT).until(() -> sumLag(base, group) == 1);
        assertThat(json.readTree(get(base + "/v1/groups").body()).get("stale").asBoolean())
            .isFalse();
      }
    }
  }

  /**
   * A monitor that ticks often and calls its figures stale after 2 s, its clients quick to give up.
   */
  private static Map<String, Object> quickToStale(String bootstrapServers, String group) {
    Map<String, Object> settings = new HashMap<>();
    settings.put(MonitorConfig.BOOTSTRAP_SERVERS, bootstrapServers);
    settings.put(MonitorConfig.GROUPS, group);
    settings.put(MonitorConfig.TICK_INTERVAL_MS, "300");
    settings.put(MonitorConfig.WINDOW_MS, "3000");
    settings.put(MonitorConfig.STALE_AFTER_MS, "2000");
    settings.put(MonitorConfig.HTTP_PORT, "0");
    settings.put("kafka.request.timeout.ms", "1000");
    settings.put("kafka.default.api.timeout.ms", "1000");
    return settings;
  }

  private long sumLag(String base, String group) throws Exception {
    HttpResponse<String> detail = get(base + "/v1/groups/" + group);
    return detail.statusCode() == 200
        ? json.readTree(detail.body()).get("sumLag").asLong()
        : Long.MIN_VALUE;
  }

  @Test
  void aPartitionWithoutALeaderCostsOnlyItsOwnRow() throws Exception {
    try (KafkaProcess kafka = KafkaProcess.cluster(2).start()) {
      String up = UniqueNames.topic("up");
      String orphan = UniqueNames.topic("orphan");
      String group = UniqueNames.group("leaderless");
      kafka
          .admin()
          .createTopics(
              List.of(
                  new NewTopic(up, Map.of(0, List.of(1))),
                  new NewTopic(orphan, Map.of(0, List.of(2)))))
          .all()
          .get(30, TimeUnit.SECONDS);
      produce(kafka, up, 3);
      produce(kafka, orphan, 3);
      commit(kafka, group, new TopicPartition(up, 0), 1);
      commit(kafka, group, new TopicPartition(orphan, 0), 1);
      Map<String, Object> settings = new HashMap<>();
      settings.put(MonitorConfig.BOOTSTRAP_SERVERS, kafka.bootstrapServers());
      settings.put(MonitorConfig.GROUPS, group);
      settings.put(MonitorConfig.TICK_INTERVAL_MS, "1000");
      settings.put(MonitorConfig.WINDOW_MS, "5000");
      try (LagMonitor monitor =
          LagMonitor.create(settings, new SimpleMeterRegistry(), Clock.systemUTC())) {
        assertThat(monitor.tick().group(group).orElseThrow().sumLag()).isEqualTo(4);
        kafka.kill(2);
        long started = System.nanoTime();
        // Ticks fail while the group's coordinator moves to the surviving broker (the controller
        // first waits out the dead broker's session); then only the orphan's row is unknown.
        GroupLag g =
            await()
                .atMost(TIMEOUT)
                .ignoreExceptionsInstanceOf(IllegalStateException.class)
                .until(
                    () -> monitor.tick().group(group).orElseThrow(),
                    lag -> lag.partitions().stream().anyMatch(p -> !p.known()));
        Duration tick = Duration.ofNanos(System.nanoTime() - started);
        PartitionLag lost =
            g.partitions().stream().filter(p -> p.topic().equals(orphan)).findFirst().orElseThrow();
        assertThat(lost.verdict().status()).isEqualTo(Status.UNKNOWN);
        assertThat(lost.verdict().reason()).contains("leader");
        PartitionLag fine =
            g.partitions().stream().filter(p -> p.topic().equals(up)).findFirst().orElseThrow();
        assertThat(fine.lag()).isEqualTo(2);
        assertThat(monitor.health().ready()).isTrue();
        assertThat(tick).as("a leaderless partition bounds the tick").isLessThan(TIMEOUT);
      }
    }
  }

  private HttpResponse<String> get(String uri) throws Exception {
    return http.send(
        HttpRequest.newBuilder(URI.create(uri)).GET().build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private static void produce(KafkaProcess kafka, String topic, int n) throws Exception {
    Map<String, Object> config =
        new HashMap<>(kafka.clientSettings(KafkaProcess.SUPER_USER, KafkaProcess.SUPER_PASSWORD));
    try (KafkaProducer<String, String> producer =
        new KafkaProducer<>(config, new StringSerializer(), new StringSerializer())) {
      for (int i = 0; i < n; i++) {
        producer.send(new ProducerRecord<>(topic, 0, "k", "v" + i));
      }
      producer.flush();
    }
  }

  private static void commit(KafkaProcess kafka, String group, TopicPartition tp, long offset)
      throws Exception {
    kafka
        .admin()
        .alterConsumerGroupOffsets(group, Map.of(tp, new OffsetAndMetadata(offset)))
        .all()
        .get(30, TimeUnit.SECONDS);
  }
}
