package dev.courier.retry.internal;

/** What a main-topic record of a key needs, given the key's chain. */
public enum KeyAdmission {
  /** Its key is not blocked: it is handled as usual. */
  FREE,
  /** Its key is blocked: it waits behind the key's records, in order, without a call. */
  WAIT,
  /**
   * Read again (after a restart or a forward that was not made): the chain already holds it, or it
   * is before the key's head and was done.
   */
  SEEN,
  /** The partition has {@code retry.ordering.max.blocked.keys}: it is not read for now. */
  FULL,
  /**
   * Its key is blocked and the partition has {@code retry.ordering.max.waiting.records} waiting:
   * {@code retry.ordering.overflow} says what happens.
   */
  OVERFLOW
}
