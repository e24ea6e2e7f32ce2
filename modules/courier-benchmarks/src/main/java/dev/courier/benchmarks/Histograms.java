package dev.courier.benchmarks;

import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.config.MeterFilter;
import io.micrometer.core.instrument.distribution.CountAtBucket;
import io.micrometer.core.instrument.distribution.DistributionStatisticConfig;
import io.micrometer.core.instrument.distribution.HistogramSnapshot;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * Percentiles of what a timer recorded between two snapshots, from its histogram buckets: a timer's
 * own percentiles cover its whole life (and a decaying window), so they would count a warm-up the
 * measurement means to leave out.
 */
final class Histograms {

  /**
   * Keeps a timer's histogram for an hour in one window: Micrometer's default rotates it every 40
   * s, so two snapshots across a rotation would not subtract.
   */
  static final MeterFilter NO_ROTATION =
      new MeterFilter() {
        @Override
        public DistributionStatisticConfig configure(
            Meter.Id id, DistributionStatisticConfig config) {
          return DistributionStatisticConfig.builder()
              .expiry(Duration.ofHours(1))
              .bufferLength(1)
              .build()
              .merge(config);
        }
      };

  private Histograms() {}

  /**
   * For each quantile, the upper bound (ms) of the bucket where the window's count reaches it.
   *
   * @throws IllegalArgumentException when the snapshots' buckets differ or nothing was recorded
   */
  static double[] percentiles(HistogramSnapshot before, HistogramSnapshot after, double... qs) {
    CountAtBucket[] from = before.histogramCounts();
    CountAtBucket[] to = after.histogramCounts();
    if (from.length != to.length || to.length == 0) {
      throw new IllegalArgumentException("snapshots of different histograms, or none");
    }
    double total = after.count() - before.count();
    if (total <= 0) {
      throw new IllegalArgumentException("nothing recorded between the snapshots");
    }
    double[] out = new double[qs.length];
    for (int q = 0; q < qs.length; q++) {
      out[q] = to[to.length - 1].bucket(TimeUnit.MILLISECONDS);
      for (int i = 0; i < to.length; i++) {
        // Buckets are cumulative: the count at or below each bound.
        if (to[i].count() - from[i].count() >= qs[q] * total) {
          out[q] = to[i].bucket(TimeUnit.MILLISECONDS);
          break;
        }
      }
    }
    return out;
  }
}
