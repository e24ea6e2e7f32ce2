package dev.courier.benchmarks;

/**
 * A figure measured run by run against its target, in a report's table of checks; a figure with no
 * target ({@code null}) is reported for the record only.
 */
record Check(Measurement figure, String unit, Target target) {

  static Check reported(Measurement figure, String unit) {
    return new Check(figure, unit, null);
  }

  boolean met() {
    return target != null && target.metBy(figure);
  }

  String targetText() {
    return target == null ? "-" : target.describe() + unit;
  }

  String metText() {
    return target == null ? "-" : met() ? "yes" : "no";
  }
}
