package dev.courier.outbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.courier.testkit.BackendMatrix;
import dev.courier.testkit.CourierInfraTest;
import dev.courier.testkit.InfraSettings;
import dev.courier.testkit.KafkaBroker;
import dev.courier.testkit.TestDatabase;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.sql.Connection;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * The broker freezes (its container paused) while events are committed, and comes back: the relay
 * keeps retrying and then delivers everything, in order per key, nothing lost.
 */
@CourierInfraTest
@BackendMatrix
@EnabledIfSystemProperty(
    named = InfraSettings.INFRA,
    matches = "testcontainers",
    disabledReason = "pausing the broker needs a container; runs in CI's Testcontainers leg")
class KafkaUnavailableIT {

  @Test
  void relayWaitsOutABrokerOutageAndDeliversInOrder(KafkaBroker kafka, TestDatabase db)
      throws Exception {
    OutboxFixture fixture =
        new OutboxFixture(kafka, db).with(OutboxRelayConfig.DELIVERY_TIMEOUT_MS, "10000");
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    String topic = fixture.topic("account");
    kafka.createTopic(topic, 3);
    try (OutboxRelay relay = OutboxRelay.create(fixture.settings, registry, Clock.systemUTC())) {
      assertThat(relay.awaitStreaming(Duration.ofSeconds(60))).isTrue();
      OutboxWriter writer = OutboxWriter.create();
      kafka.pause();
      try (Connection c = db.connection()) {
        c.setAutoCommit(false);
        for (int i = 1; i <= 5; i++) {
          writer.write(c, OutboxRelayIT.credit("acc-a", i).build());
          writer.write(c, OutboxRelayIT.credit("acc-b", i).build());
          c.commit();
        }
        // The outage lasts until the producer gave up on a send and the relay sent it again (seen
        // after 26 to 70 s on these machines).
        await()
            .atMost(Duration.ofSeconds(240))
            .until(() -> registry.get("courier.outbox.resent").counter().count() > 0);
      } finally {
        kafka.resume();
      }
      List<ConsumerRecord<String, String>> delivered =
          OutboxFixture.read(kafka, topic, 10, Duration.ofSeconds(120));
      assertThat(delivered).hasSize(10);
      for (String account : List.of("acc-a", "acc-b")) {
        assertThat(
                delivered.stream().filter(r -> r.key().equals(account)).map(ConsumerRecord::value))
            .containsExactly(
                "{\"amount\":1}",
                "{\"amount\":2}",
                "{\"amount\":3}",
                "{\"amount\":4}",
                "{\"amount\":5}");
      }
      assertThat(relay.healthy()).isTrue();
    }
  }
}
