package dev.courier.retry;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;

/**
 * Tokens for extra attempts, shared by a consumer's workers: each retry takes one, they refill at a
 * fixed rate up to a capacity. When empty a record waits at its tier instead of multiplying load on
 * a struggling dependency. Also the rate limiter of DLT replays.
 */
public final class RetryBudget {

  private final double capacity;
  private final double perSecond;
  private final Clock clock;
  private double tokens;
  private Instant last;

  /**
   * A budget of {@code capacity} tokens, refilled at {@code refillPerSecond}, full at the start.
   *
   * @throws IllegalArgumentException when the capacity is below 1 or the refill not positive
   */
  public static RetryBudget of(int capacity, double refillPerSecond, Clock clock) {
    return new RetryBudget(capacity, refillPerSecond, clock);
  }

  private RetryBudget(int capacity, double refillPerSecond, Clock clock) {
    if (capacity < 1 || !(refillPerSecond > 0)) {
      throw new IllegalArgumentException(
          "need capacity >= 1 and refill > 0, got " + capacity + " and " + refillPerSecond);
    }
    this.capacity = capacity;
    this.perSecond = refillPerSecond;
    this.clock = clock;
    this.tokens = capacity;
    this.last = clock.instant();
  }

  /** An unlimited budget. */
  public static RetryBudget unlimited(Clock clock) {
    return new RetryBudget(Integer.MAX_VALUE, Integer.MAX_VALUE, clock);
  }

  /** Takes a token if one is there. */
  public synchronized boolean tryAcquire() {
    refill();
    if (tokens >= 1) {
      tokens -= 1;
      return true;
    }
    return false;
  }

  /** How long until a token is there (zero when one is). */
  public synchronized Duration untilAvailable() {
    refill();
    return tokens >= 1
        ? Duration.ZERO
        : Duration.ofNanos((long) Math.ceil((1 - tokens) / perSecond * 1e9));
  }

  private void refill() {
    Instant now = clock.instant();
    double elapsed = Duration.between(last, now).toNanos() / 1e9;
    if (elapsed > 0) {
      tokens = Math.min(capacity, tokens + elapsed * perSecond);
      last = now;
    }
  }

  @Override
  public String toString() {
    return capacity >= Integer.MAX_VALUE
        ? "unlimited"
        : String.format(
            java.util.Locale.ROOT, "%d tokens, refill %.1f/s", (long) capacity, perSecond);
  }
}
