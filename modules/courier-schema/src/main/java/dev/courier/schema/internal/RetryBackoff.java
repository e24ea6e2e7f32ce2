package dev.courier.schema.internal;

import java.util.random.RandomGenerator;

/**
 * Capped exponential backoff with full jitter: the wait before retry {@code n} (0-based) is uniform
 * in {@code [0, min(cap, base * 2^n)]}, so clients that failed together do not retry together.
 */
public final class RetryBackoff {

  private final long baseMs;
  private final long capMs;
  private final RandomGenerator random;

  public RetryBackoff(long baseMs, long capMs, RandomGenerator random) {
    if (baseMs < 0 || capMs < 0) {
      throw new IllegalArgumentException("backoff base and cap must not be negative");
    }
    this.baseMs = baseMs;
    this.capMs = capMs;
    this.random = random;
  }

  /** The ceiling of the wait before retry {@code retry}. */
  public long ceilingMs(int retry) {
    long ceiling = baseMs;
    for (int i = 0; i < retry && ceiling > 0 && ceiling < capMs; i++) {
      ceiling *= 2;
    }
    return Math.min(capMs, ceiling);
  }

  /** A random wait in {@code [0, ceilingMs(retry)]}. */
  public long delayMs(int retry) {
    long ceiling = ceilingMs(retry);
    return ceiling == 0 ? 0 : random.nextLong(ceiling + 1);
  }
}
