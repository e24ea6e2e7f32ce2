package dev.courier.outbox;

import static org.assertj.core.api.Assertions.assertThat;

import dev.courier.testkit.CourierInfraTest;
import dev.courier.testkit.KafkaProcess;
import dev.courier.testkit.TestDatabase;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.sql.Connection;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.resource.ResourceType;
import org.junit.jupiter.api.Test;

/**
 * Kafka refusing the relay's send for want of a right: the relay's principal may write its
 * accounts' topic, its dead-letter topic and its positions, but not the topic one event routes to.
 * That event is dead-lettered with the refusal, the ones after it are relayed, and the relay stays
 * ready; nothing waits for a right that will not come.
 */
@CourierInfraTest
class RelayAclRefusalIT {

  private static final Duration TIMEOUT = Duration.ofSeconds(60);

  @Test
  void anEventForATopicTheRelayMayNotWriteIsDeadLetteredAndTheRelayGoesOn(TestDatabase db)
      throws Exception {
    try (KafkaProcess kafka = KafkaProcess.scram().start()) {
      OutboxFixture fixture =
          new OutboxFixture(kafka.bootstrapServers(), db)
              .with(OutboxRelayConfig.INVALID_ROW_POLICY, "dead-letter");
      String deadLetters = fixture.prefix + ".outbox.dlt";
      for (String topic :
          List.of(fixture.topic("account"), fixture.topic("payment"), deadLetters)) {
        kafka.createTopic(topic, 1);
      }
      kafka.addUser("relay", "relay-secret");
      for (String allowed :
          List.of(fixture.topic("account"), deadLetters, fixture.prefix + ".offsets")) {
        kafka.allow(
            "relay",
            ResourceType.TOPIC,
            allowed,
            AclOperation.CREATE,
            AclOperation.WRITE,
            AclOperation.READ,
            AclOperation.DESCRIBE,
            AclOperation.DESCRIBE_CONFIGS);
      }
      kafka.allow(
          "relay",
          ResourceType.TRANSACTIONAL_ID,
          fixture.prefix,
          AclOperation.WRITE,
          AclOperation.DESCRIBE);
      kafka
          .clientSettings("relay", "relay-secret")
          .forEach(
              (key, value) -> {
                if (!key.equals("bootstrap.servers")) {
                  fixture.with("kafka." + key, value);
                }
              });

      try (OutboxRelay relay =
          OutboxRelay.create(fixture.settings, new SimpleMeterRegistry(), Clock.systemUTC())) {
        assertThat(relay.awaitStreaming(TIMEOUT)).isTrue();
        OutboxEvent refused =
            OutboxEvent.builder()
                .aggregate("payment", "pay-1")
                .eventType("PaymentRequested")
                .json("{\"amount\":7}")
                .build();
        try (Connection c = db.connection()) {
          c.setAutoCommit(false);
          OutboxWriter.create()
              .writeAll(c, List.of(refused, OutboxRelayIT.credit("acc-1", 8).build()));
          c.commit();
        }

        List<String> dead = kafka.readValues(deadLetters, 1, Duration.ZERO);
        assertThat(dead).hasSize(1);
        assertThat(dead.get(0))
            .contains("\"eventId\":\"" + refused.eventId() + "\"")
            .contains("\"aggregateType\":\"payment\"")
            .contains("TopicAuthorizationException")
            .contains("\"payload\":");
        assertThat(kafka.readValues(fixture.topic("account"), 1, Duration.ZERO))
            .containsExactly("{\"amount\":8}");
        assertThat(relay.health().ready()).isTrue();
      }
    }
  }
}
