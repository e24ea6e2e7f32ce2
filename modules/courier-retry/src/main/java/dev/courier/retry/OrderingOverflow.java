package dev.courier.retry;

import dev.courier.core.Choice;

/**
 * What a partition does at its key-ordering bound ({@code retry.ordering.max.blocked.keys} or
 * {@code retry.ordering.max.waiting.records}): never an unbounded heap ({@code
 * retry.ordering.overflow}).
 */
public enum OrderingOverflow implements Choice {
  /**
   * The main topic's partition is not read until its blocked keys or waiting records drop below the
   * bound; the tiers go on, so the heads resolve and their keys drain. Nothing is dead-lettered.
   */
  PAUSE,
  /**
   * A record that would wait beyond {@code retry.ordering.max.waiting.records} goes to the DLT as
   * {@code ordering-overflow}, naming the record it would have waited behind; the partition goes
   * on. At {@code retry.ordering.max.blocked.keys} the partition pauses as with {@code pause}.
   */
  DEAD_LETTER;
}
