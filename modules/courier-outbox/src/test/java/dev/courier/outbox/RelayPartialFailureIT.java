package dev.courier.outbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.courier.testkit.CourierInfraTest;
import dev.courier.testkit.KafkaProcess;
import dev.courier.testkit.TestDatabase;
import dev.courier.testkit.UniqueNames;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.sql.Connection;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.NewTopic;
import org.junit.jupiter.api.Test;

/**
 * A partial failure in the middle of a batch: two brokers, the payments topic's only replica on the
 * second; that broker is killed while a batch mixes payments and accounts. Accounts are
 * acknowledged, payments time out. From the first failed record on, everything is sent again, in
 * order, until the broker is back: each key's last copy is its latest event, and nothing is lost.
 */
@CourierInfraTest
class RelayPartialFailureIT {

  private static final Duration TIMEOUT = Duration.ofSeconds(90);

  @Test
  void fromTheFirstFailedRecordEverythingIsSentAgainInOrder(TestDatabase db) throws Exception {
    try (KafkaProcess kafka = KafkaProcess.cluster(2).start()) {
      String prefix = UniqueNames.topic("partial").replace('-', '_');
      Map<String, String> settings =
          OutboxRelayConfig.settings(
              kafka.bootstrapServers(), db.jdbcUrl(), db.username(), db.password(), prefix);
      settings.put(OutboxRelayConfig.DELIVERY_TIMEOUT_MS, "3000");
      String accounts = prefix + ".account";
      String payments = prefix + ".payment";
      // Everything but payments lives on broker 1, which stays up.
      kafka
          .admin()
          .createTopics(
              List.of(
                  new NewTopic(accounts, Map.of(0, List.of(1))),
                  new NewTopic(payments, Map.of(0, List.of(2))),
                  new NewTopic(
                          settings.get(OutboxRelayConfig.OFFSET_STORAGE_TOPIC),
                          Map.of(0, List.of(1)))
                      .configs(Map.of("cleanup.policy", "compact"))))
          .all()
          .get(30, TimeUnit.SECONDS);
      SimpleMeterRegistry meters = new SimpleMeterRegistry();
      try (OutboxRelay relay = OutboxRelay.create(settings, meters, Clock.systemUTC())) {
        assertThat(relay.awaitStreaming(TIMEOUT)).isTrue();
        kafka.kill(2);
        try (Connection c = db.connection()) {
          c.setAutoCommit(false);
          OutboxWriter writer = OutboxWriter.create();
          for (int i = 1; i <= 3; i++) {
            writer.write(c, event("account", "acc-1", i));
            writer.write(c, event("payment", "pay-1", i));
            writer.write(c, event("account", "acc-1", 10 + i));
          }
          c.commit();
        }
        await()
            .atMost(TIMEOUT)
            .until(() -> meters.get("courier.outbox.resent").counter().count() >= 8);
        kafka.start(2);
        await().atMost(TIMEOUT).until(() -> relay.health().ready());
        // A send that timed out may still have been written (the broker came back while the
        // request was in flight): such a batch is there twice. Nothing is lost, and each key's
        // copies end in order, which is what a consumer deduplicating by event id relies on.
        List<String> payment = kafka.readValues(payments, 3, Duration.ofSeconds(1));
        assertThat(payment).containsOnly("1", "2", "3");
        assertLastCopiesInOrder(payment, List.of("1", "2", "3"));
        List<String> account = kafka.readValues(accounts, 6, Duration.ofSeconds(1));
        // The record before the first failure went once; from the failure on, everything of its
        // batch went again, in order, each time (how Debezium cut the batches decides how much).
        assertThat(account).filteredOn("1"::equals).hasSize(1);
        assertLastCopiesInOrder(account, List.of("1", "11", "2", "12", "3", "13"));
      }
    }
  }

  /** Every value is there, the last copy of each after the last copy of the one before it. */
  private static void assertLastCopiesInOrder(List<String> values, List<String> order) {
    for (int i = 1; i < order.size(); i++) {
      assertThat(values.lastIndexOf(order.get(i)))
          .as(
              "in %s the last copy of %s comes after the last copy of %s",
              values, order.get(i), order.get(i - 1))
          .isGreaterThan(values.lastIndexOf(order.get(i - 1)));
    }
    assertThat(values.get(values.size() - 1))
        .as("the key's last value (what compaction keeps) is its latest event")
        .isEqualTo(order.get(order.size() - 1));
  }

  private static OutboxEvent event(String aggregate, String id, int n) {
    return OutboxEvent.builder()
        .aggregate(aggregate, id)
        .eventType("E")
        .json(String.valueOf(n))
        .build();
  }
}
