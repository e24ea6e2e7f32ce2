package dev.courier.backpressure;

import java.time.Duration;
import java.util.Optional;

/**
 * Rates over the sliding window, per second: records produced, records completed (committed offset
 * advance) and lag growth; the estimated time to drain is empty when lag is not shrinking.
 */
public record Rates(
    double produceRate,
    double commitRate,
    double lagGrowthRate,
    Optional<Duration> timeToDrain,
    Duration span) {

  public static final Rates NONE = new Rates(0, 0, 0, Optional.empty(), Duration.ZERO);

  public Rates {
    timeToDrain = timeToDrain == null ? Optional.empty() : timeToDrain;
    span = span == null ? Duration.ZERO : span;
  }
}
