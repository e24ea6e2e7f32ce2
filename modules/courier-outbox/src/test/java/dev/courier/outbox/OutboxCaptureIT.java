package dev.courier.outbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.courier.testkit.CourierInfra;
import dev.courier.testkit.CourierInfraTest;
import dev.courier.testkit.KafkaBroker;
import dev.courier.testkit.TestDatabase;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;

/**
 * A first deploy, on a database no relay has run on: an event is published whatever starts first,
 * because nothing is committed before the relay's slot and publication exist. Before, the relay
 * made its slot when it started, and an event committed earlier was never published.
 */
@CourierInfraTest
class OutboxCaptureIT {

  private static final Duration TIMEOUT = Duration.ofSeconds(90);

  @Test
  void aWriterBeforeAnyRelayIsRefusedUntilTheCaptureIsPreparedAndThenItsEventIsPublished(
      CourierInfra infra, KafkaBroker kafka) throws Exception {
    // A database of its own: the class's may hold another test's slot already.
    TestDatabase db = infra.postgres().createDatabase("capture");
    OutboxFixture fixture = new OutboxFixture(kafka, db);
    OutboxSchema.migrate(db.dataSource());
    assertThat(OutboxSchema.uncaptured(db.dataSource(), OutboxShards.SINGLE))
        .get()
        .asString()
        .contains("no publication holds courier_outbox")
        .contains("no logical replication slot");

    assertThatThrownBy(() -> OutboxFixture.write(db, "acc-1"))
        .isInstanceOf(OutboxNotCapturedException.class)
        .hasMessageContaining("would never be published");

    OutboxRelayConfig config = new OutboxRelayConfig(fixture.settings);
    OutboxSchema.prepareCapture(db.dataSource(), OutboxShards.SINGLE, OutboxCapture.of(config));
    OutboxSchema.prepareCapture(db.dataSource(), OutboxShards.SINGLE, OutboxCapture.of(config));
    assertThat(OutboxSchema.uncaptured(db.dataSource(), OutboxShards.SINGLE)).isEmpty();
    String id = OutboxFixture.write(db, "acc-1");

    try (OutboxRelay relay =
        OutboxRelay.create(fixture.settings, new SimpleMeterRegistry(), Clock.systemUTC())) {
      List<ConsumerRecord<String, String>> published =
          OutboxFixture.read(kafka, fixture.topic("account"), 1, TIMEOUT);
      assertThat(published)
          .extracting(r -> OutboxFixture.header(r, dev.courier.core.CourierHeaders.ID))
          .containsExactly(id);
    }
  }

  @Test
  void aRelayStartedOnAFreshDatabasePublishesAnEventWrittenAsSoonAsItsSlotExists(
      CourierInfra infra, KafkaBroker kafka) throws Exception {
    TestDatabase db = infra.postgres().createDatabase("fresh");
    OutboxFixture fixture = new OutboxFixture(kafka, db);
    try (OutboxRelay relay =
        OutboxRelay.create(fixture.settings, new SimpleMeterRegistry(), Clock.systemUTC())) {
      await()
          .atMost(TIMEOUT)
          .pollInterval(Duration.ofMillis(20))
          .ignoreExceptions()
          .until(() -> OutboxSchema.uncaptured(db.dataSource(), OutboxShards.SINGLE).isEmpty());
      String id = OutboxFixture.write(db, "acc-2");
      List<ConsumerRecord<String, String>> published =
          OutboxFixture.read(kafka, fixture.topic("account"), 1, TIMEOUT);
      assertThat(published)
          .extracting(r -> OutboxFixture.header(r, dev.courier.core.CourierHeaders.ID))
          .containsExactly(id);
    }
  }
}
