package dev.courier.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.courier.core.CourierHeaders;
import dev.courier.outbox.OutboxEvent;
import dev.courier.outbox.OutboxRelay;
import dev.courier.outbox.OutboxRelayConfig;
import dev.courier.outbox.OutboxWriter;
import dev.courier.retry.DltFilter;
import dev.courier.retry.DltRecord;
import dev.courier.retry.DltReplayer;
import dev.courier.retry.RetryConfig;
import dev.courier.retry.RetryTopics;
import dev.courier.retry.RetryingConsumer;
import dev.courier.testkit.CourierInfraTest;
import dev.courier.testkit.KafkaBroker;
import dev.courier.testkit.TestDatabase;
import dev.courier.testkit.UniqueNames;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.sql.Connection;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.Test;

/**
 * One header name across modules: the deadline an outbox event is written with is the deadline the
 * retry ladder enforces. An event whose deadline has passed reaches a retry worker, which
 * dead-letters it as {@code expired} without calling the handler.
 */
@CourierInfraTest
class OutboxDeadlineIT {

  private static final Duration TIMEOUT = Duration.ofSeconds(90);

  @Test
  void anOutboxEventPastItsDeadlineIsDeadLetteredExpiredWithoutACall(
      KafkaBroker kafka, TestDatabase db) throws Exception {
    String prefix = UniqueNames.topic("deadline").replace('-', '_');
    String topic = prefix + ".payment";
    String group = UniqueNames.group("deadline");
    kafka.createTopic(topic, 1);
    Map<String, String> relaySettings =
        OutboxRelayConfig.settings(
            kafka.bootstrapServers(), db.jdbcUrl(), db.username(), db.password(), prefix);
    List<String> handled = new CopyOnWriteArrayList<>();
    ExecutorService thread = Executors.newSingleThreadExecutor();
    try (OutboxRelay relay =
        OutboxRelay.create(relaySettings, new SimpleMeterRegistry(), Clock.systemUTC())) {
      assertThat(relay.awaitStreaming(TIMEOUT)).isTrue();
      OutboxEvent late =
          OutboxEvent.builder()
              .operationKey("pay-late")
              .aggregate("payment", "acc-1")
              .eventType("PaymentRequested")
              .json("{\"amount\":10}")
              .deadline(Instant.now().minusSeconds(60))
              .build();
      OutboxEvent inTime =
          OutboxEvent.builder()
              .operationKey("pay-in-time")
              .aggregate("payment", "acc-1")
              .eventType("PaymentRequested")
              .json("{\"amount\":20}")
              .deadline(Instant.now().plusSeconds(3600))
              .build();
      try (Connection c = db.connection()) {
        c.setAutoCommit(false);
        OutboxWriter.create().write(c, late);
        OutboxWriter.create().write(c, inTime);
        c.commit();
      }
      RetryingConsumer<String, String> worker =
          RetryingConsumer.builder(
                  Map.of(
                      RetryConfig.BOOTSTRAP_SERVERS, kafka.bootstrapServers(),
                      RetryConfig.GROUP_ID, group,
                      RetryConfig.TOPIC, topic),
                  new StringDeserializer(),
                  new StringDeserializer())
              .handler(
                  r ->
                      handled.add(
                          CourierHeaders.text(r.headers(), CourierHeaders.ID).orElseThrow()))
              .build();
      Future<?> loop = thread.submit(worker::run);
      try (DltReplayer replayer = DltReplayer.create(kafka.clientSettings(), db.dataSource())) {
        List<DltRecord> dead =
            await()
                .atMost(TIMEOUT)
                .until(
                    () ->
                        replayer.list(
                            new RetryTopics(topic, group, 1).deadLetter(), DltFilter.all()),
                    l -> !l.isEmpty());
        await().atMost(TIMEOUT).until(() -> handled.size() == 1);
        assertThat(dead).hasSize(1);
        assertThat(dead.get(0).reason()).isEqualTo("expired");
        assertThat(dead.get(0).attempts()).as("never executed").isZero();
        assertThat(dead.get(0).operationKey()).contains(late.eventId().toString());
        assertThat(handled).containsExactly(inTime.eventId().toString());
      } finally {
        worker.close();
        loop.get(30, TimeUnit.SECONDS);
      }
    } finally {
      thread.shutdownNow();
    }
  }
}
