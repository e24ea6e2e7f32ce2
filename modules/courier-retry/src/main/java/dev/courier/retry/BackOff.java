package dev.courier.retry;

import java.time.Duration;
import java.util.Objects;
import java.util.random.RandomGenerator;

/**
 * The delay before a retry. Pure: the random source is passed in, so a seeded generator gives the
 * same values every time.
 */
public sealed interface BackOff {

  /** The delay before retry number {@code retry} (1 for the first retry). */
  Duration delay(int retry, RandomGenerator random);

  /** The longest delay {@link #delay} can return for that retry (the tier's nominal delay). */
  Duration ceiling(int retry);

  static BackOff fixed(Duration delay) {
    return new Fixed(delay);
  }

  /** Capped exponential with full jitter: uniform in [0, min(cap, base * 2^(retry-1))]. */
  static BackOff exponentialFullJitter(Duration base, Duration cap) {
    return new FullJitter(base, cap);
  }

  record Fixed(Duration delay) implements BackOff {
    public Fixed {
      if (delay.isNegative()) {
        throw new IllegalArgumentException("delay must be >= 0, got " + delay);
      }
    }

    @Override
    public Duration delay(int retry, RandomGenerator random) {
      return delay;
    }

    @Override
    public Duration ceiling(int retry) {
      return delay;
    }

    @Override
    public String toString() {
      return "fixed " + delay;
    }
  }

  record FullJitter(Duration base, Duration cap) implements BackOff {
    public FullJitter {
      Objects.requireNonNull(base, "base");
      Objects.requireNonNull(cap, "cap");
      if (base.isNegative() || base.isZero() || cap.compareTo(base) < 0) {
        throw new IllegalArgumentException("need 0 < base <= cap, got " + base + " and " + cap);
      }
    }

    @Override
    public Duration delay(int retry, RandomGenerator random) {
      long ceiling = ceiling(retry).toMillis();
      return Duration.ofMillis(ceiling == 0 ? 0 : random.nextLong(ceiling + 1));
    }

    @Override
    public Duration ceiling(int retry) {
      if (retry < 1) {
        throw new IllegalArgumentException("retry numbers start at 1, got " + retry);
      }
      int shift = Math.min(retry - 1, 30);
      long millis = base.toMillis() << shift;
      return millis <= 0 || millis > cap.toMillis() ? cap : Duration.ofMillis(millis);
    }

    @Override
    public String toString() {
      return "exponential, full jitter, base " + base + ", cap " + cap;
    }
  }
}
