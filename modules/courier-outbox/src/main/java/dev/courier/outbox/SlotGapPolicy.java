package dev.courier.outbox;

import dev.courier.core.Choice;

/**
 * What the relay does when its replication slot is not the one its stored position came from
 * ({@code outbox.slot.gap.policy}): the changes committed in between cannot be captured any more.
 */
public enum SlotGapPolicy implements Choice {
  /** Refuse to start and say what happened (the default). */
  FAIL,
  /** Go on from the slot's position; log the gap and count it. */
  ACCEPT;

  static SlotGapPolicy of(String value) {
    return Choice.of(SlotGapPolicy.class, value);
  }
}
