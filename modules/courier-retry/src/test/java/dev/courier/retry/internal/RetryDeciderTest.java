package dev.courier.retry.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.courier.retry.BackOff;
import dev.courier.retry.Classification;
import dev.courier.retry.Decision;
import dev.courier.retry.FailureClass;
import dev.courier.retry.FailureClassifier;
import dev.courier.retry.RetryBudget;
import dev.courier.retry.RetryPolicy;
import dev.courier.testkit.MutableClock;
import java.io.IOException;
import java.sql.SQLTransientConnectionException;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class RetryDeciderTest {

  private static final Instant NOW = Instant.parse("2026-11-29T12:00:00Z");
  private final FailureClassifier classifier = FailureClassifier.defaults();
  private final RetryDecider decider =
      new RetryDecider(
          new RetryPolicy(3, BackOff.fixed(Duration.ofSeconds(10)), Duration.ofHours(1)),
          new SplittableRandom(1));

  private Classification transientFailure() {
    return classifier.classify(new SQLTransientConnectionException("db gone"));
  }

  @Test
  void aTransientFailureGoesToTheNextTierWithItsDueTime() {
    Decision d = decider.afterFailure(1, transientFailure(), NOW, Optional.empty(), NOW);
    assertThat(d).isEqualTo(new Decision.Retry(1, 2, NOW.plusSeconds(10)));
  }

  @Test
  void aPermanentErrorGoesStraightOutAfterOneAttempt() {
    Decision d =
        decider.afterFailure(
            1,
            classifier.classify(new IllegalArgumentException("amount must be positive")),
            NOW,
            Optional.empty(),
            NOW);
    assertThat(d).isEqualTo(new Decision.DeadLetter(Decision.DeadLetter.PERMANENT));
  }

  @Test
  void theAttemptCapStops() {
    assertThat(decider.afterFailure(2, transientFailure(), NOW, Optional.empty(), NOW))
        .isInstanceOf(Decision.Retry.class);
    assertThat(decider.afterFailure(3, transientFailure(), NOW, Optional.empty(), NOW))
        .isEqualTo(new Decision.DeadLetter(Decision.DeadLetter.ATTEMPTS));
  }

  @Test
  void anAlreadyExpiredDeadlineIsNeverExecuted() {
    assertThat(decider.beforeAttempt(Optional.of(NOW.minusMillis(1)), NOW))
        .contains(new Decision.DeadLetter(Decision.DeadLetter.EXPIRED));
    assertThat(decider.beforeAttempt(Optional.of(NOW.plusMillis(1)), NOW)).isEmpty();
  }

  @Test
  void aBackoffLongerThanTheRemainingDeadlineStopsWithDeadline() {
    Decision d =
        decider.afterFailure(1, transientFailure(), NOW, Optional.of(NOW.plusSeconds(5)), NOW);
    assertThat(d).isEqualTo(new Decision.DeadLetter(Decision.DeadLetter.DEADLINE));
  }

  @Test
  void theElapsedLimitStops() {
    Decision d =
        decider.afterFailure(
            2,
            transientFailure(),
            NOW.minus(Duration.ofMinutes(59)).minusSeconds(55),
            Optional.empty(),
            NOW);
    assertThat(d).isEqualTo(new Decision.DeadLetter(Decision.DeadLetter.ELAPSED));
  }

  @Test
  void theBudgetIsSharedAcrossOperations() {
    MutableClock clock = new MutableClock(NOW);
    RetryBudget budget = RetryBudget.of(1, 0.5, clock);
    // Operation A takes the only token; operation B must wait for the refill (2 s at 0.5/s).
    assertThat(budget.tryAcquire()).as("A").isTrue();
    assertThat(budget.tryAcquire()).as("B").isFalse();
    assertThat(budget.untilAvailable()).isEqualTo(Duration.ofSeconds(2));
    clock.advance(Duration.ofSeconds(2));
    assertThat(budget.tryAcquire()).as("B after refill").isTrue();
    assertThat(budget.tryAcquire()).isFalse();
  }

  @Test
  void classificationWalksCausesAndUserRulesWin() {
    Exception wrapped =
        new RuntimeException(
            "handler failed", new IOException("x", new java.net.SocketTimeoutException("read")));
    assertThat(classifier.classify(wrapped).failureClass()).isEqualTo(FailureClass.TRANSIENT);
    assertThat(classifier.classify(new RuntimeException("who knows")).rule())
        .isEqualTo("default TRANSIENT");
    FailureClassifier custom =
        FailureClassifier.builder()
            .permanent(java.net.SocketTimeoutException.class)
            .otherwise(FailureClass.PERMANENT)
            .build();
    assertThat(custom.classify(wrapped).failureClass()).isEqualTo(FailureClass.PERMANENT);
    assertThat(custom.classify(wrapped).rule()).isEqualTo("SocketTimeoutException");
    assertThat(custom.classify(new RuntimeException()).failureClass())
        .isEqualTo(FailureClass.PERMANENT);
    assertThat(classifier.classify(new java.sql.SQLException("deadlock", "40P01")).failureClass())
        .isEqualTo(FailureClass.TRANSIENT);
  }
}
