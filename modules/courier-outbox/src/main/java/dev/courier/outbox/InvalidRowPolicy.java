package dev.courier.outbox;

import dev.courier.core.Choice;

/**
 * What the relay does with an outbox row Kafka refuses for good ({@code
 * outbox.invalid.row.policy}).
 */
public enum InvalidRowPolicy implements Choice {
  /** Stop the relay naming the row; nothing is skipped (the default). */
  FAIL,
  /** Send an envelope describing the row to {@code <prefix>.outbox.dlt} and go on. */
  DEAD_LETTER;

  static InvalidRowPolicy of(String value) {
    return Choice.of(InvalidRowPolicy.class, value);
  }
}
