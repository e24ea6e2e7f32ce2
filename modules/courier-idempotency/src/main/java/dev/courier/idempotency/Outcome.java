package dev.courier.idempotency;

/** What became of one record. */
public enum Outcome {
  /** The effect was applied and its key recorded, in one transaction. */
  APPLIED,
  /** The key was already recorded with the same payload: the effect was skipped. */
  DUPLICATE,
  /** The effect or the key check failed; nothing of this record was committed. */
  FAILED
}
