package dev.courier.retry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.courier.core.CourierHeaders;
import dev.courier.testkit.BackendMatrix;
import dev.courier.testkit.CourierInfraTest;
import dev.courier.testkit.KafkaBroker;
import dev.courier.testkit.TestDatabase;
import dev.courier.testkit.UniqueNames;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The ladder on a real broker, effects in a real PostgreSQL through the idempotent store. */
@CourierInfraTest
class RetryLadderIT {

  private static final Logger LOG = LoggerFactory.getLogger(RetryLadderIT.class);
  private static final Duration TIMEOUT = Duration.ofSeconds(60);

  @Test
  @BackendMatrix
  void aTransientFailureRecoversOnAttemptThreeNeverEarly(KafkaBroker kafka, TestDatabase db)
      throws Exception {
    String topic = UniqueNames.topic("credits");
    kafka.createTopic(topic, 2);
    CreditFixture f = new CreditFixture(kafka, db, UniqueNames.group("ladder"));
    f.transientFailures.put("op-1", 2);
    f.send(topic, "op-1", "acc-1:10", Map.of());
    RetryingConsumer<String, String> consumer = consumer(f, topic);
    assertThat(consumer.contract().render()).contains("at most 3 calls").contains(f.dlt(topic));
    RetryProgress p = Running.until(consumer, x -> x.succeeded() >= 1, TIMEOUT);
    assertThat(f.calls("op-1")).isEqualTo(3);
    assertThat(p.retried()).isEqualTo(2);
    assertThat(f.balance("acc-1")).isEqualTo(10);
    assertThat(f.lateness).hasSize(2).allMatch(d -> !d.isNegative());
    LOG.info("hop lateness: {}", f.lateness);
    assertThat(replayer(f).list(f.dlt(topic), DltFilter.all())).isEmpty();
  }

  @Test
  void aMissingMainTopicFailsAtStartNamingTheKey(KafkaBroker kafka, TestDatabase db)
      throws Exception {
    String topic = UniqueNames.topic("missing");
    CreditFixture f = new CreditFixture(kafka, db, UniqueNames.group("missing"));
    assertThatThrownBy(() -> consumer(f, topic).start())
        .isInstanceOf(org.apache.kafka.common.config.ConfigException.class)
        .hasMessageContaining("retry.topic")
        .hasMessageContaining(topic)
        .hasMessageContaining("does not exist");
  }

  @Test
  @BackendMatrix
  void aPoisonRecordGoesToTheDltAtOnceWithEverything(KafkaBroker kafka, TestDatabase db)
      throws Exception {
    String topic = UniqueNames.topic("credits");
    kafka.createTopic(topic, 2);
    CreditFixture f = new CreditFixture(kafka, db, UniqueNames.group("poison"));
    f.send(topic, "op-2", "acc-2:-5", Map.of("trace", "abc"));
    Running.until(consumer(f, topic), x -> x.deadLettered() >= 1, TIMEOUT);
    assertThat(f.calls("op-2")).isEqualTo(1);
    assertThat(f.balance("acc-2")).isZero();

    DltRecord d = replayer(f).list(f.dlt(topic), DltFilter.all()).get(0);
    assertThat(d.reason()).isEqualTo("permanent");
    assertThat(d.attempts()).isEqualTo(1);
    assertThat(replayer(f).inspect(f.dlt(topic), d.partition(), d.offset()))
        .hasValueSatisfying(one -> assertThat(one.value()).isEqualTo(d.value()));
    assertThat(replayer(f).inspect(f.dlt(topic), d.partition(), d.offset() + 1)).isEmpty();
    assertThat(new String(d.value(), StandardCharsets.UTF_8)).isEqualTo("acc-2:-5");
    assertThat(new String(d.key(), StandardCharsets.UTF_8)).isEqualTo("acc-2");
    assertThat(d.originalTopic()).isEqualTo(topic);
    assertThat(d.originalOffset()).isZero();
    assertThat(d.operationKey()).contains("op-2");
    assertThat(d.ownHeaders())
        .extracting(h -> h.key() + "=" + new String(h.value(), StandardCharsets.UTF_8))
        .containsExactly("id=op-2", "trace=abc");
    assertThat(d.exceptionClass() + " " + d.message())
        .contains("credit amount must be positive, got -5");
    assertThat(d.headers().stream().map(h -> h.key()))
        .contains(
            CourierHeaders.CLASSIFICATION,
            CourierHeaders.GROUP,
            CourierHeaders.FIRST_FAILURE,
            CourierHeaders.ORIGINAL_TIMESTAMP);
  }

  @Test
  void aFailureThatNeverRecoversLandsInTheDltAfterTheCap(KafkaBroker kafka, TestDatabase db)
      throws Exception {
    String topic = UniqueNames.topic("credits");
    kafka.createTopic(topic, 1);
    CreditFixture f = new CreditFixture(kafka, db, UniqueNames.group("cap"));
    f.transientFailures.put("op-3", 1_000);
    f.send(topic, "op-3", "acc-3:10", Map.of());
    Running.until(consumer(f, topic), x -> x.deadLettered() >= 1, TIMEOUT);
    assertThat(f.calls("op-3")).isEqualTo(3);
    DltRecord d = replayer(f).list(f.dlt(topic), DltFilter.all()).get(0);
    assertThat(d.reason()).isEqualTo("attempts-exhausted");
    assertThat(d.attempts()).isEqualTo(3);
    assertThat(d.exceptionClass()).isEqualTo("java.sql.SQLTransientConnectionException");
    assertThat(d.originalTopic()).as("coordinates survive every hop").isEqualTo(topic);
  }

  @Test
  void aRecordWhoseDeadlinePassesWhileWaitingIsParkedAsExpired(KafkaBroker kafka, TestDatabase db)
      throws Exception {
    String topic = UniqueNames.topic("credits");
    kafka.createTopic(topic, 1);
    CreditFixture f = new CreditFixture(kafka, db, UniqueNames.group("expired"));
    f.transientFailures.put("op-4", 1);
    // The budget is spent: the due retry waits at its tier for a token (5 s), past its deadline.
    RetryBudget budget = RetryBudget.of(1, 0.2, Clock.systemUTC());
    assertThat(budget.tryAcquire()).isTrue();
    String deadline = String.valueOf(Instant.now().plusSeconds(2).toEpochMilli());
    f.send(topic, "op-4", "acc-4:10", Map.of(CourierHeaders.DEADLINE, deadline));
    RetryingConsumer<String, String> consumer =
        RetryingConsumer.builder(
                f.settings(topic), new StringDeserializer(), new StringDeserializer())
            .handler(f.handler())
            .budget(budget)
            .build();
    RetryProgress p = Running.until(consumer, x -> x.deadLettered() >= 1, TIMEOUT);
    assertThat(p.budgetWaits()).isPositive();
    assertThat(f.calls("op-4")).as("never executed after the deadline").isEqualTo(1);
    DltRecord d = replayer(f).list(f.dlt(topic), DltFilter.all().reason("expired")).get(0);
    assertThat(d.operationKey()).contains("op-4");
    assertThat(f.balance("acc-4")).isZero();
  }

  private static RetryingConsumer<String, String> consumer(CreditFixture f, String topic) {
    return RetryingConsumer.builder(
            f.settings(topic), new StringDeserializer(), new StringDeserializer())
        .handler(f.handler())
        .build();
  }

  static DltReplayer replayer(CreditFixture f) {
    return DltReplayer.create(
        Map.of(
            "bootstrap.servers",
            f.kafka.bootstrapServers(),
            DltReplayerConfig.REPLAY_RATE_PER_SECOND,
            50),
        f.db.dataSource());
  }
}
