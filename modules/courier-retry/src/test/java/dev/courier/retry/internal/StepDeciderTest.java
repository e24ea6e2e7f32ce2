package dev.courier.retry.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.courier.core.CourierHeaders;
import dev.courier.retry.BackOff;
import dev.courier.retry.Decision;
import dev.courier.retry.RetryBudget;
import dev.courier.retry.RetryPolicy;
import dev.courier.testkit.MutableClock;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.SplittableRandom;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.record.TimestampType;
import org.junit.jupiter.api.Test;

/** What a polled record needs, decided from its headers, the clock and the budget alone. */
class StepDeciderTest {

  private static final Instant NOW = Instant.parse("2026-12-03T12:00:00Z");
  private final MutableClock clock = new MutableClock(NOW);
  private final RetryBudget budget = RetryBudget.of(1, 0.001, clock);
  private final StepDecider decider =
      new StepDecider(
          3,
          new RetryDecider(
              new RetryPolicy(3, BackOff.fixed(Duration.ofSeconds(1)), Duration.ofHours(1)),
              new SplittableRandom(1)),
          budget,
          CourierHeaders.ID);

  private static ConsumerRecord<byte[], byte[]> record(String topic, String... headers) {
    RecordHeaders h = new RecordHeaders();
    for (int i = 0; i < headers.length; i += 2) {
      h.add(headers[i], headers[i + 1].getBytes(StandardCharsets.UTF_8));
    }
    return new ConsumerRecord<>(
        topic,
        0,
        7,
        1L,
        TimestampType.CREATE_TIME,
        1,
        1,
        new byte[0],
        new byte[0],
        h,
        Optional.empty());
  }

  private RecordStep decide(ConsumerRecord<byte[], byte[]> record, int tier) {
    return decider.decide(
        record,
        LadderState.read(record, tier, CourierHeaders.ID, CourierHeaders.DEADLINE),
        tier,
        NOW);
  }

  @Test
  void aCleanMainTopicRecordIsCalledAsAttemptOne() {
    RecordStep step = decide(record("t", CourierHeaders.ID, "op-1"), 0);
    assertThat(step).isInstanceOf(RecordStep.Call.class);
    assertThat(step.state().attempt()).isEqualTo(1);
    assertThat(((RecordStep.Call) step).tier()).isZero();
  }

  @Test
  void malformedHeadersParkTheRecordUnexecutedNamingTheHeader() {
    RecordStep step = decide(record("t", CourierHeaders.ATTEMPT, "abc"), 0);
    assertThat(step).isInstanceOf(RecordStep.Park.class);
    Hop.Failure failure = ((RecordStep.Park) step).failure();
    assertThat(failure.reason()).isEqualTo(Decision.DeadLetter.MALFORMED);
    assertThat(failure.attempts()).isZero();
    assertThat(failure.describe()).contains(CourierHeaders.ATTEMPT).contains("abc");
    assertThat(step.state().originalOffset()).isEqualTo(7);
  }

  @Test
  void aRecordAboveTheCapIsParkedAsExhaustedWithoutACall() {
    RecordStep step = decide(record("t.retry.3", CourierHeaders.ATTEMPT, "4"), 3);
    assertThat(step).isInstanceOf(RecordStep.Park.class);
    Hop.Failure failure = ((RecordStep.Park) step).failure();
    assertThat(failure.reason()).isEqualTo(Decision.DeadLetter.ATTEMPTS);
    assertThat(failure.attempts()).isEqualTo(3);
    assertThat(failure.describe()).contains("above retry.max.attempts=3");
  }

  @Test
  void aTierRecordWaitsForItsDueTimeAndNeverRunsEarly() {
    String due = String.valueOf(NOW.plusMillis(1).toEpochMilli());
    RecordStep step = decide(record("t.retry.1", CourierHeaders.DUE, due), 1);
    assertThat(step).isEqualTo(new RecordStep.Wait(NOW.plusMillis(1), false));
  }

  @Test
  void anExpiredDeadlineParksTheRecordUnexecuted() {
    RecordStep step = decide(record("t", CourierHeaders.DEADLINE, NOW.toString()), 0);
    assertThat(step).isInstanceOf(RecordStep.Park.class);
    assertThat(((RecordStep.Park) step).failure().reason()).isEqualTo(Decision.DeadLetter.EXPIRED);
    assertThat(((RecordStep.Park) step).failure().describe()).isEqualTo("not executed");
  }

  @Test
  void aDueRetryWaitsWhileTheBudgetIsEmptyAndTheMainTopicNeverDoes() {
    String due = String.valueOf(NOW.toEpochMilli());
    assertThat(decide(record("t.retry.1", CourierHeaders.DUE, due), 1))
        .isInstanceOf(RecordStep.Call.class); // the one token
    RecordStep waits = decide(record("t.retry.1", CourierHeaders.DUE, due), 1);
    assertThat(waits).isInstanceOf(RecordStep.Wait.class);
    assertThat(((RecordStep.Wait) waits).forBudget()).isTrue();
    assertThat(((RecordStep.Wait) waits).due()).isAfter(NOW);
    assertThat(decide(record("t", CourierHeaders.ID, "op-2"), 0))
        .as("first attempts take no token")
        .isInstanceOf(RecordStep.Call.class);
  }
}
