package dev.courier.benchmarks;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/** Repeated timings of one pipeline: throughput per run, median and spread. */
record Measurement(String name, List<Double> perSecond) {

  double median() {
    List<Double> sorted = new ArrayList<>(perSecond);
    Collections.sort(sorted);
    int n = sorted.size();
    return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
  }

  /** The q-th quantile (0..1), nearest rank. */
  double percentile(double q) {
    List<Double> sorted = new ArrayList<>(perSecond);
    Collections.sort(sorted);
    int rank = (int) Math.ceil(q * sorted.size());
    return sorted.get(Math.max(0, Math.min(sorted.size() - 1, rank - 1)));
  }

  double min() {
    return Collections.min(perSecond);
  }

  double max() {
    return Collections.max(perSecond);
  }
}
