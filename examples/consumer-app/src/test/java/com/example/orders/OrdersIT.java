package com.example.orders;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.courier.outbox.OutboxRelay;
import dev.courier.outbox.OutboxRelayConfig;
import dev.courier.retry.RetryProgress;
import dev.courier.retry.RetryingConsumer;
import dev.courier.testkit.CourierInfraTest;
import dev.courier.testkit.KafkaBroker;
import dev.courier.testkit.TestDatabase;
import dev.courier.testkit.UniqueNames;
import java.sql.SQLTransientConnectionException;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The whole path another team builds from Courier's public API: orders and their events commit
 * together, the relay publishes them, billing charges each once although the payment gateway fails
 * once and a retry re-delivers.
 */
@CourierInfraTest
class OrdersIT {

  private static final Duration TIMEOUT = Duration.ofSeconds(120);

  private final KafkaBroker kafka;
  private final TestDatabase db;

  OrdersIT(KafkaBroker kafka, TestDatabase db) {
    this.kafka = kafka;
    this.db = db;
  }

  @Test
  void everyOrderIsChargedOnceThroughAFailure() throws Exception {
    String prefix = UniqueNames.topic("shop");
    Orders orders = new Orders(db.dataSource());
    Billing billing = new Billing(db.dataSource());
    orders.createTables();
    billing.createTables();

    Map<String, String> relaySettings =
        OutboxRelayConfig.settings(
            kafka.bootstrapServers(), db.jdbcUrl(), db.username(), db.password(), prefix);
    // As in a deployment: the topic exists (with its partitions) before the relay and the workers.
    String topic = prefix + ".account";
    kafka.createTopic(topic, 3);
    try (OutboxRelay relay = OutboxRelay.create(relaySettings)) {
      assertThat(relay.awaitStreaming(TIMEOUT)).isTrue();
      orders.place("o-1", "acc-1", 10);
      orders.place("o-2", "acc-1", 20);
      orders.place("o-3", "acc-1", 30);

      Map<String, Object> workerSettings = new HashMap<>();
      workerSettings.put("bootstrap.servers", kafka.bootstrapServers());
      workerSettings.put("retry.group.id", UniqueNames.group("billing"));
      workerSettings.put("retry.topic", topic);
      workerSettings.put("retry.max.attempts", 3);
      workerSettings.put("retry.backoff.type", "fixed");
      workerSettings.put("retry.backoff.initial.ms", 200);
      workerSettings.put("kafka.auto.offset.reset", "earliest");
      AtomicInteger gatewayCalls = new AtomicInteger();
      try (RetryingConsumer<String, String> worker =
          billing.worker(
              workerSettings,
              record -> {
                if (gatewayCalls.incrementAndGet() == 2) {
                  throw new SQLTransientConnectionException("payment gateway unavailable");
                }
              })) {
        Thread loop = new Thread(worker::run, "billing-worker");
        loop.start();
        await().atMost(TIMEOUT).until(() -> billing.balance("acc-1") == 60);
        RetryProgress progress = worker.progress();
        assertThat(progress.retried()).isEqualTo(1);
        assertThat(progress.deadLettered()).isZero();
        assertThat(gatewayCalls).hasValue(4);
        worker.close();
        loop.join(TIMEOUT.toMillis());
      }
      assertThat(billing.balance("acc-1")).isEqualTo(60);
    }
  }
}
