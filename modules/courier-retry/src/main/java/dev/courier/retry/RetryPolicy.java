package dev.courier.retry;

import java.time.Duration;
import java.util.Objects;

/**
 * When to stop: at most {@code maxAttempts} calls of the handler (the first one included), no retry
 * that would run after the record's business deadline, none once {@code maxElapsed} has passed
 * since the first failure; delays from {@code backOff}. One retry tier per retry: {@code
 * maxAttempts - 1} tiers.
 */
public record RetryPolicy(int maxAttempts, BackOff backOff, Duration maxElapsed) {

  public RetryPolicy {
    if (maxAttempts < 1 || maxAttempts > 20) {
      throw new IllegalArgumentException("maxAttempts must be in [1, 20], got " + maxAttempts);
    }
    Objects.requireNonNull(backOff, "backOff");
    if (maxElapsed.isNegative() || maxElapsed.isZero()) {
      throw new IllegalArgumentException("maxElapsed must be positive, got " + maxElapsed);
    }
  }

  public int tiers() {
    return maxAttempts - 1;
  }
}
