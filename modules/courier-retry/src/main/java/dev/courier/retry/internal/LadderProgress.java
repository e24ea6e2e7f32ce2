package dev.courier.retry.internal;

import dev.courier.retry.RetryProgress;

/** A consumer's counts; written by its loop thread only, read from any. */
public final class LadderProgress {

  private volatile long calls;
  private volatile long succeeded;
  private volatile long retried;
  private volatile long deadLettered;
  private volatile long budgetWaits;

  // Single writer: the increments below are not atomic, and need not be.
  @SuppressWarnings("NonAtomicOperationOnVolatileField")
  void call() {
    calls++;
  }

  @SuppressWarnings("NonAtomicOperationOnVolatileField")
  void succeeded() {
    succeeded++;
  }

  @SuppressWarnings("NonAtomicOperationOnVolatileField")
  void retried() {
    retried++;
  }

  @SuppressWarnings("NonAtomicOperationOnVolatileField")
  void deadLettered() {
    deadLettered++;
  }

  @SuppressWarnings("NonAtomicOperationOnVolatileField")
  void budgetWait() {
    budgetWaits++;
  }

  public RetryProgress snapshot() {
    return new RetryProgress(calls, succeeded, retried, deadLettered, budgetWaits);
  }
}
