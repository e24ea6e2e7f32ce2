package dev.courier.retry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.courier.core.CourierHeaders;
import dev.courier.core.PermanentError;
import dev.courier.idempotency.Outcome;
import dev.courier.testkit.CourierInfraTest;
import dev.courier.testkit.KafkaBroker;
import dev.courier.testkit.TestDatabase;
import dev.courier.testkit.UniqueNames;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.Test;

/** Operator replay from the DLT: dry run, audit, rate limit, parking, and the idempotent store. */
@CourierInfraTest
class DltReplayIT {

  private static final Duration TIMEOUT = Duration.ofSeconds(60);

  /** A downstream refusal the consumer cannot fix by retrying. */
  static final class ReceiptRejected extends RuntimeException implements PermanentError {
    ReceiptRejected(String message) {
      super(message);
    }

    @Override
    public String reason() {
      return "receipt rejected";
    }
  }

  @Test
  void replaysAreDeduplicatedAppliedOnceAuditedRateLimitedAndSkipParked(
      KafkaBroker kafka, TestDatabase db) throws Exception {
    String topic = UniqueNames.topic("credits");
    String group = UniqueNames.group("replay");
    String dlt = new RetryTopics(topic, group, 2).deadLetter();
    kafka.createTopic(topic, 1);
    CreditFixture f = new CreditFixture(kafka, db, UniqueNames.group("replay"));
    Set<String> frozen = ConcurrentHashMap.newKeySet();
    frozen.add("acc-9");
    Set<String> failAfterEffectOnce = ConcurrentHashMap.newKeySet();
    failAfterEffectOnce.add("op-after");
    RecordHandler<String, String> scripted =
        record -> {
          String key = CourierHeaders.text(record.headers(), CourierHeaders.ID).orElseThrow();
          String account = record.value().split(":")[0];
          if (frozen.contains(account)) {
            throw new ReceiptRejected("account " + account + " is frozen");
          }
          f.handler().handle(record);
          if (failAfterEffectOnce.remove(key)) {
            // The effect is committed; what follows fails, so the record reaches the DLT anyway.
            throw new ReceiptRejected("receipt service refused " + key);
          }
        };
    f.send(topic, "op-after", "acc-8:10", Map.of());
    f.send(topic, "op-frozen", "acc-9:25", Map.of());
    for (int i = 0; i < 4; i++) {
      f.send(topic, "op-bad-" + i, "acc-7:-" + (i + 1), Map.of());
    }
    Running.until(consumer(f, topic, group, scripted), p -> p.deadLettered() >= 6, TIMEOUT);
    assertThat(f.balance("acc-8")).isEqualTo(10);
    assertThat(f.balance("acc-9")).isZero();

    try (DltReplayer replayer =
        DltReplayer.create(
            Map.of(
                "bootstrap.servers",
                kafka.bootstrapServers(),
                DltReplayerConfig.REPLAY_RATE_PER_SECOND,
                2.0),
            db.dataSource())) {
      assertThat(replayer.list(dlt, DltFilter.all().exception("ReceiptRejected"))).hasSize(2);
      assertThat(replayer.list(dlt, DltFilter.all().key("op-frozen")))
          .singleElement()
          .satisfies(r -> assertThat(r.message()).isEqualTo("account acc-9 is frozen"));

      // Park the negative credits except one: parked records are never replayed.
      List<DltRecord> bad = replayer.list(dlt, DltFilter.all().exception("RecordEffectException"));
      assertThat(bad).hasSize(4);
      replayer.park(bad.get(0), "ops@example.com", "negative amount, customer refunded by hand");

      // The account is unfrozen; replay everything that is not parked.
      frozen.clear();
      DltReplayer.ReplayPlan plan =
          replayer.plan(dlt, DltFilter.all(), ReplayTarget.failingGroup());
      assertThat(plan.records()).hasSize(5);
      assertThat(plan.parked()).hasSize(1);
      assertThat(plan.render()).contains("Plan: replay 5").contains("PARKED");
      assertThatThrownBy(() -> replayer.replay(plan, "ops@example.com", ""))
          .hasMessageContaining("reason is required");
      long started = System.nanoTime();
      DltReplayer.ReplayResult result =
          replayer.replay(plan, "ops@example.com", "incident 42 fixed");
      Duration took = Duration.ofNanos(System.nanoTime() - started);
      assertThat(result.sent()).isEqualTo(5);
      // 2 records/s: the first goes at once, the other four wait for tokens.
      assertThat(took).isGreaterThanOrEqualTo(Duration.ofMillis(1900));

      f.outcomes.clear();
      Running.until(consumer(f, topic, group, scripted), p -> p.finished() >= 5, TIMEOUT);
      assertThat(f.outcomes).containsExactlyInAnyOrder(Outcome.DUPLICATE, Outcome.APPLIED);
      assertThat(f.balance("acc-8")).as("effect before the DLT: not applied again").isEqualTo(10);
      assertThat(f.balance("acc-9")).as("corrected record applied once").isEqualTo(25);

      // Replaying the same records again changes nothing.
      replayer.replay(
          replayer.plan(dlt, DltFilter.all().key("op-frozen"), ReplayTarget.failingGroup()),
          "ops@example.com",
          "double check");
      f.outcomes.clear();
      Running.until(consumer(f, topic, group, scripted), p -> p.finished() >= 1, TIMEOUT);
      assertThat(f.outcomes).containsExactly(Outcome.DUPLICATE);
      assertThat(f.balance("acc-9")).isEqualTo(25);

      assertThat(replayer.auditTrail(dlt))
          .hasSize(3)
          .anySatisfy(
              e -> assertThat(e).contains("park").contains("negative amount").contains("parked"))
          .anySatisfy(
              e ->
                  assertThat(e)
                      .contains("replay (incident 42 fixed) -> replayed 5")
                      .contains("op-after"));
    }
  }

  @Test
  void aRecordParkedAfterThePlanIsSkippedAtExecutionAndReported(KafkaBroker kafka, TestDatabase db)
      throws Exception {
    String topic = UniqueNames.topic("credits");
    String group = UniqueNames.group("late-park");
    String dlt = new RetryTopics(topic, group, 2).deadLetter();
    kafka.createTopic(topic, 1);
    CreditFixture f = new CreditFixture(kafka, db, UniqueNames.group("late-park"));
    f.send(topic, "op-a", "acc-a:-1", Map.of());
    f.send(topic, "op-b", "acc-b:-2", Map.of());
    Running.until(consumer(f, topic, group, f.handler()), p -> p.deadLettered() >= 2, TIMEOUT);
    try (DltReplayer replayer = RetryLadderIT.replayer(f)) {
      DltReplayer.ReplayPlan plan =
          replayer.plan(dlt, DltFilter.all(), ReplayTarget.failingGroup());
      assertThat(plan.records()).hasSize(2);
      // Between the dry run and the execution, a colleague parks one of them.
      DltRecord parkedLate = plan.records().get(1);
      replayer.park(parkedLate, "bob@example.com", "refunded by hand");
      DltReplayer.ReplayResult result = replayer.replay(plan, "ops@example.com", "retry both");
      assertThat(result.sent()).isEqualTo(1);
      assertThat(result.coordinates()).containsExactly(plan.records().get(0).coordinates());
      assertThat(result.skippedParked()).containsExactly(parkedLate.coordinates());
      assertThat(replayer.auditTrail(dlt))
          .anySatisfy(
              e ->
                  assertThat(e)
                      .contains("replayed 1")
                      .contains("skipped [" + parkedLate.coordinates() + "]"));
    }
  }

  private static RetryingConsumer<String, String> consumer(
      CreditFixture f, String topic, String group, RecordHandler<String, String> handler) {
    return RetryingConsumer.builder(
            f.settings(topic, group), new StringDeserializer(), new StringDeserializer())
        .handler(handler)
        .build();
  }
}
