package com.example.shop;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.courier.cli.Courier;
import dev.courier.core.CourierHeaders;
import dev.courier.outbox.OutboxEvent;
import dev.courier.spring.CourierRetryContainer;
import dev.courier.spring.CourierRetryContainerFactory;
import dev.courier.testkit.CourierInfra;
import dev.courier.testkit.TestDatabase;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Primary;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The shop on real Kafka and PostgreSQL (the testkit's), through its HTTP endpoint, Courier's relay
 * in the application, and a @KafkaListener on Courier's idempotent store and retry ladder.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class ShopIT {

  private static final Duration TIMEOUT = Duration.ofSeconds(90);
  private static final String TOPIC = "shop.order";
  private static final CourierInfra INFRA = CourierInfra.shared();
  private static final TestDatabase DB = INFRA.postgres().createDatabase("shop");

  @DynamicPropertySource
  static void infrastructure(DynamicPropertyRegistry registry) {
    INFRA.springProperties(DB).forEach((key, value) -> registry.add(key, () -> value));
  }

  @TestConfiguration
  static class Gateway {
    @Bean
    @Primary
    ScriptedGateway scriptedGateway() {
      return new ScriptedGateway();
    }
  }

  @LocalServerPort int port;
  @Autowired ScriptedGateway gateway;
  @Autowired JdbcTemplate jdbc;
  @Autowired CourierRetryContainerFactory ladder;

  @Test
  void aRefusedOrderPublishesNothingAndAPlacedOneIsChargedOnceWhateverIsRedelivered()
      throws Exception {
    assertThat(post("o-1", "acc-1", 0)).isEqualTo(400);
    assertThat(post("o-2", "acc-1", 10)).isEqualTo(201);
    await().atMost(TIMEOUT).until(() -> charged("acc-1") == 10);
    assertThat(jdbc.queryForList("SELECT id FROM orders WHERE account = 'acc-1'", String.class))
        .containsExactly("o-2");

    ConsumerRecord<String, String> placed =
        INFRA.kafka().readStrings(TOPIC, 100, Duration.ofSeconds(2)).stream()
            .filter(r -> r.key().equals("o-2"))
            .findFirst()
            .orElseThrow();
    assertThat(INFRA.kafka().readStrings(TOPIC, 100, Duration.ofSeconds(2)))
        .extracting(ConsumerRecord::key)
        .doesNotContain("o-1");
    long before = billing().progress().succeeded();
    try (KafkaProducer<String, String> producer = producer()) {
      for (int i = 0; i < 2; i++) { // a redelivery, as a relay restart or a replay would make
        producer
            .send(new ProducerRecord<>(TOPIC, null, placed.key(), placed.value(), placed.headers()))
            .get();
      }
    }
    await().atMost(TIMEOUT).until(() -> billing().progress().succeeded() >= before + 2);
    assertThat(charged("acc-1")).isEqualTo(10);
    assertThat(gateway.calls(eventId("o-2"))).isEqualTo(1);
  }

  @Test
  void aTransientFailureClimbsTheLadderAndSucceeds() throws Exception {
    assertThat(post("o-3", "flaky-1", 20)).isEqualTo(201);
    await().atMost(TIMEOUT).until(() -> charged("flaky-1") == 20);
    assertThat(gateway.calls(eventId("o-3"))).isEqualTo(3);
  }

  @Test
  void aPermanentFailureLandsInTheDltAndAnOperatorsReplayChargesItOnce() throws Exception {
    gateway.frozen.add("acc-frozen");
    assertThat(post("o-4", "acc-frozen", 30)).isEqualTo(201);
    String dlt = billing().topics().deadLetter();
    ConsumerRecord<String, String> parked =
        INFRA.kafka().readStrings(dlt, 1, TIMEOUT).stream()
            .filter(r -> r.key().equals("o-4"))
            .findFirst()
            .orElseThrow();
    assertThat(header(parked, CourierHeaders.CLASSIFICATION)).startsWith("PERMANENT");
    assertThat(header(parked, CourierHeaders.MESSAGE)).contains("acc-frozen is frozen");
    assertThat(charged("acc-frozen")).isZero();

    gateway.frozen.remove("acc-frozen");
    assertThat(replay(dlt, eventId("o-4"))).isZero();
    await().atMost(TIMEOUT).until(() -> charged("acc-frozen") == 30);
    long before = billing().progress().succeeded();
    assertThat(replay(dlt, eventId("o-4"))).as("replayed twice by mistake").isZero();
    await().atMost(TIMEOUT).until(() -> billing().progress().succeeded() > before);
    assertThat(charged("acc-frozen")).isEqualTo(30);
    assertThat(gateway.calls(eventId("o-4"))).isEqualTo(2); // refused once, charged once
  }

  @Test
  void actuatorReportsEachCourierComponentAndItsMetrics() throws Exception {
    await()
        .atMost(TIMEOUT)
        .until(
            () ->
                "STREAMING".equals(health().at("/components/courierRelay/details/state").asText()));
    JsonNode health = health();
    assertThat(health.at("/status").asText()).isEqualTo("UP");
    assertThat(health.at("/components/courierRelay/status").asText()).isEqualTo("UP");
    assertThat(health.at("/components/courierRetry/status").asText()).isEqualTo("UP");
    assertThat(health.at("/components/courierRetry/details/listeners/billing/topic").asText())
        .isEqualTo(TOPIC);
    assertThat(health.at("/components/courierMonitor/status").asText()).isEqualTo("UP");
    await().atMost(TIMEOUT).until(() -> !groups().at("/groups/billing/state").isMissingNode());
    JsonNode billing = groups().at("/groups/billing");
    assertThat(billing.at("/sumLag").isNumber()).isTrue();
    assertThat(billing.at("/maxOldestAgeSeconds").isNumber()).isTrue();
    String metrics = get("/actuator/prometheus");
    assertThat(metrics)
        .contains(
            "courier_retry_",
            "courier_outbox_",
            "courier_idempotency_",
            "courier_monitor_group_max_lag");
  }

  private JsonNode groups() throws Exception {
    return new ObjectMapper().readTree(get("/actuator/courier"));
  }

  private JsonNode health() throws Exception {
    return new ObjectMapper().readTree(get("/actuator/health"));
  }

  private CourierRetryContainer billing() {
    return ladder.containers().stream()
        .filter(c -> c.getListenerId().equals("billing"))
        .findFirst()
        .orElseThrow();
  }

  /** The event id the outbox derives from the order's operation key: billing's idempotency key. */
  private static String eventId(String orderId) {
    return OutboxEvent.idFor("order-" + orderId + "-placed").toString();
  }

  private int replay(String dlt, String key) {
    return Courier.execute(
        "dlt",
        "replay",
        dlt,
        "--operation-key",
        key,
        "--execute",
        "--reason",
        "account unfrozen",
        "--actor",
        "ops",
        "--set",
        "bootstrap.servers=" + INFRA.kafka().bootstrapServers(),
        "--set",
        "audit.jdbc.url=" + DB.jdbcUrl(),
        "--set",
        "audit.jdbc.user=" + DB.username(),
        "--set",
        "audit.jdbc.password=" + DB.password());
  }

  private long charged(String account) {
    List<Long> rows =
        jdbc.queryForList("SELECT charged FROM balances WHERE account = ?", Long.class, account);
    return rows.isEmpty() ? 0 : rows.get(0);
  }

  private int post(String id, String account, long amount) throws Exception {
    return new ShopClient(port).placeOrder(id, account, amount);
  }

  private String get(String path) throws Exception {
    return new ShopClient(port).get(path);
  }

  private static KafkaProducer<String, String> producer() {
    return new KafkaProducer<>(
        Map.of("bootstrap.servers", INFRA.kafka().bootstrapServers()),
        new StringSerializer(),
        new StringSerializer());
  }

  private static String header(ConsumerRecord<?, ?> record, String name) {
    return new String(record.headers().lastHeader(name).value(), StandardCharsets.UTF_8);
  }
}
