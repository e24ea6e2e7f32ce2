package dev.courier.backpressure.internal;

import dev.courier.backpressure.Status;

/**
 * A group's figures summed over its partitions as they are visited: sum and max of lag, the oldest
 * age, growth and commit rates, the longest time to drain (none once one lagging partition is not
 * draining) and the worst status with the row that set it.
 */
public final class RollUp {

  public long sumLag;
  public long maxLag;
  public long maxAgeNanos;
  public double growth;
  public double commit;

  /** Millis, or -1 when some lagging partition is not draining. */
  public long drainMillis;

  public Status status = Status.OK;

  /** Index of the partition that set the status, or -1 for none. */
  public int worst = -1;

  /**
   * @param drain millis to drain the partition, or -1 when it is not draining
   */
  public void add(
      int index,
      long lag,
      long ageNanos,
      double growthRate,
      double commitRate,
      long drain,
      Status s) {
    sumLag += lag;
    maxLag = Math.max(maxLag, lag);
    maxAgeNanos = Math.max(maxAgeNanos, ageNanos);
    growth += growthRate;
    commit += commitRate;
    if (drainMillis >= 0) {
      if (drain < 0) {
        drainMillis = lag == 0 ? drainMillis : -1;
      } else {
        drainMillis = Math.max(drainMillis, drain);
      }
    }
    Status before = status;
    status = status.worse(s);
    if (status != before || worst < 0) {
      worst = index;
    }
  }
}
