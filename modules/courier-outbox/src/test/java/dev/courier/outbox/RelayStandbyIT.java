package dev.courier.outbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.courier.testkit.CourierInfraTest;
import dev.courier.testkit.JvmWorker;
import dev.courier.testkit.KafkaBroker;
import dev.courier.testkit.TestDatabase;
import dev.courier.testkit.WorkerProcess;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.sql.Connection;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Two relays with the same settings on one slot: the second never streams alongside the first. It
 * waits as a standby (not ready, the reason names the slot and its reader) and takes over when the
 * first is SIGKILLed, losing nothing.
 */
@CourierInfraTest
class RelayStandbyIT {

  private static final Logger LOG = LoggerFactory.getLogger(RelayStandbyIT.class);
  private static final Duration TIMEOUT = Duration.ofSeconds(90);

  @Test
  void aSecondRelayWaitsAsStandbyAndTakesOverWhenTheFirstIsKilled(
      KafkaBroker kafka, TestDatabase db) throws Exception {
    OutboxFixture fixture = new OutboxFixture(kafka, db);
    String topic = fixture.topic("account");
    try (WorkerProcess first =
        JvmWorker.of(RelayMain.class).args(fixture.args()).name("relay-1").start()) {
      try {
        await()
            .atMost(TIMEOUT)
            .until(() -> first.output().contains(RelayMain.STREAMING) || !first.isAlive());
      } catch (ConditionTimeoutException e) {
        throw new AssertionError("the first relay did not stream:\n" + first.output(), e);
      }
      assertThat(first.output()).as("the first relay streams").contains(RelayMain.STREAMING);
      SimpleMeterRegistry registry = new SimpleMeterRegistry();
      try (OutboxRelay second = OutboxRelay.create(fixture.settings, registry, Clock.systemUTC())) {
        await().atMost(TIMEOUT).until(() -> second.health().status().equals("STANDBY"));
        assertThat(second.health().ready()).isFalse();
        assertThat(second.health().live()).isTrue();
        assertThat(second.health().reason())
            .contains(fixture.settings.get(OutboxRelayConfig.SLOT))
            .contains("takes over when it stops");
        assertThat(registry.get("courier.outbox.standby").gauge().value()).isEqualTo(1.0);

        OutboxEvent before = write(db, "acc-1");
        List<ConsumerRecord<String, String>> delivered =
            OutboxFixture.read(kafka, topic, 1, TIMEOUT);
        assertThat(OutboxFixture.header(delivered.get(0), "id"))
            .isEqualTo(before.eventId().toString());
        assertThat(second.health().status())
            .as("never streams beside the first")
            .isEqualTo("STANDBY");

        long killed = System.nanoTime();
        first.kill();
        OutboxEvent after = write(db, "acc-1");
        await()
            .atMost(Duration.ofSeconds(30))
            .pollInterval(Duration.ofMillis(250))
            .until(
                () ->
                    OutboxFixture.read(kafka, topic, 2, Duration.ofMillis(200)).stream()
                        .anyMatch(
                            r -> after.eventId().toString().equals(OutboxFixture.header(r, "id"))));
        long takeoverMs = (System.nanoTime() - killed) / 1_000_000;
        LOG.info("takeover: first event of the standby {} ms after the SIGKILL", takeoverMs);

        List<String> ids =
            OutboxFixture.read(kafka, topic, 2, TIMEOUT).stream()
                .map(r -> OutboxFixture.header(r, "id"))
                .distinct()
                .toList();
        assertThat(ids)
            .as("nothing lost, in commit order")
            .containsExactly(before.eventId().toString(), after.eventId().toString());
        assertThat(second.health().status()).isEqualTo("STREAMING");
        assertThat(registry.get("courier.outbox.standby").gauge().value()).isZero();
      }
    }
  }

  private static OutboxEvent write(TestDatabase db, String account) throws Exception {
    OutboxEvent event = OutboxRelayIT.credit(account, 10).build();
    try (Connection c = db.connection()) {
      c.setAutoCommit(false);
      OutboxWriter.create().write(c, event);
      c.commit();
    }
    return event;
  }
}
