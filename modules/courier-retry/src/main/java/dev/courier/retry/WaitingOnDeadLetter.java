package dev.courier.retry;

import dev.courier.core.Choice;

/**
 * What happens to the records waiting behind a record of their key that goes to the DLT ({@code
 * retry.ordering.on.dead.letter}).
 */
public enum WaitingOnDeadLetter implements Choice {
  /** They follow it into the DLT, in order, each naming it in {@code courier.blocked.by}. */
  PARK,
  /** They are handled, in order, as if it had succeeded. */
  RELEASE;
}
