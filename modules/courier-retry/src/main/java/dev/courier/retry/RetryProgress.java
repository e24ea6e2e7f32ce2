package dev.courier.retry;

/** Counts of one consumer since it started. */
public record RetryProgress(
    long calls, long succeeded, long retried, long deadLettered, long budgetWaits) {

  /** Records that reached an end: done, or parked in the DLT. */
  public long finished() {
    return succeeded + deadLettered;
  }
}
