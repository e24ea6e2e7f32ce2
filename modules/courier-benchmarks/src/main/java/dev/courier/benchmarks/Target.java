package dev.courier.benchmarks;

import java.util.Locale;

/**
 * A bound a figure must clear. It is met only when every measured run clears it, so a target is
 * never "met" by a lucky median.
 */
record Target(boolean atLeast, double bound) {

  static Target atLeast(double bound) {
    return new Target(true, bound);
  }

  static Target atMost(double bound) {
    return new Target(false, bound);
  }

  boolean metBy(Measurement m) {
    return atLeast ? m.min() >= bound : m.max() <= bound;
  }

  String describe() {
    return String.format(Locale.ROOT, "%s %s", atLeast ? ">=" : "<=", trim(bound));
  }

  private static String trim(double v) {
    return v == Math.rint(v) ? String.valueOf((long) v) : String.valueOf(v);
  }
}
