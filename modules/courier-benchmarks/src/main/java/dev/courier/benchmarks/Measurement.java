package dev.courier.benchmarks;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;

/**
 * Repeated values of one figure (a throughput, a latency, a ratio), one per measured run: median
 * and spread.
 */
record Measurement(String name, List<Double> values) {

  Measurement {
    if (values.isEmpty()) {
      throw new IllegalArgumentException(name + ": no measured run");
    }
    values = List.copyOf(values);
  }

  double median() {
    return percentile(0.5);
  }

  /** The q-th quantile (0..1), interpolated between the nearest ranks. */
  double percentile(double q) {
    List<Double> sorted = new ArrayList<>(values);
    Collections.sort(sorted);
    double at = q * (sorted.size() - 1);
    int low = (int) Math.floor(at);
    int high = (int) Math.ceil(at);
    return sorted.get(low) + (sorted.get(high) - sorted.get(low)) * (at - low);
  }

  double min() {
    return Collections.min(values);
  }

  double max() {
    return Collections.max(values);
  }

  int runs() {
    return values.size();
  }

  /** The spread as "min-max (IQR p25-p75)", at the given number of decimals. */
  String spread(int decimals) {
    String f = "%,." + decimals + "f";
    return String.format(
        Locale.ROOT,
        f + "-" + f + " (IQR " + f + "-" + f + ")",
        min(),
        max(),
        percentile(0.25),
        percentile(0.75));
  }

  /** Round by round, this run's value over the other's: the ratio of two alternated variants. */
  Measurement over(String ratioName, Measurement baseline) {
    return over(ratioName, List.of(baseline));
  }

  /**
   * Round by round, this run's value over the smallest of the baselines' values in that round: a
   * pipeline measured against the tighter of its limits.
   */
  Measurement over(String ratioName, List<Measurement> baselines) {
    List<Double> ratios = new ArrayList<>();
    for (int i = 0; i < values.size(); i++) {
      double smallest = Double.MAX_VALUE;
      for (Measurement b : baselines) {
        if (b.runs() != runs()) {
          throw new IllegalArgumentException(
              name + " has " + runs() + " runs, " + b.name() + " " + b.runs());
        }
        smallest = Math.min(smallest, b.values().get(i));
      }
      ratios.add(values.get(i) / smallest);
    }
    return new Measurement(ratioName, ratios);
  }
}
