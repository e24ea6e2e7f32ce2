package dev.courier.retry.internal;

import dev.courier.retry.Classification;
import dev.courier.retry.Decision;
import dev.courier.retry.RetryPolicy;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.random.RandomGenerator;

/**
 * The stop rules, pure: given a failed attempt, its classification, the first failure time, the
 * business deadline and now, decides between the next tier and the DLT. The random source is the
 * backoff's jitter.
 */
public final class RetryDecider {

  private final RetryPolicy policy;
  private final RandomGenerator random;

  public RetryDecider(RetryPolicy policy, RandomGenerator random) {
    this.policy = policy;
    this.random = random;
  }

  /** Before an attempt: a record whose deadline has passed is never executed. */
  public Optional<Decision.DeadLetter> beforeAttempt(Optional<Instant> deadline, Instant now) {
    if (deadline.isPresent() && !now.isBefore(deadline.get())) {
      return Optional.of(new Decision.DeadLetter(Decision.DeadLetter.EXPIRED));
    }
    return Optional.empty();
  }

  public Decision afterFailure(
      int attempt,
      Classification classification,
      Instant firstFailure,
      Optional<Instant> deadline,
      Instant now) {
    if (classification.permanent()) {
      return new Decision.DeadLetter(Decision.DeadLetter.PERMANENT);
    }
    if (attempt >= policy.maxAttempts()) {
      return new Decision.DeadLetter(Decision.DeadLetter.ATTEMPTS);
    }
    Duration delay = policy.backOff().delay(attempt, random);
    Instant due = now.plus(delay);
    if (deadline.isPresent() && !due.isBefore(deadline.get())) {
      return new Decision.DeadLetter(Decision.DeadLetter.DEADLINE);
    }
    if (Duration.between(firstFailure, due).compareTo(policy.maxElapsed()) > 0) {
      return new Decision.DeadLetter(Decision.DeadLetter.ELAPSED);
    }
    return new Decision.Retry(attempt, attempt + 1, due);
  }
}
