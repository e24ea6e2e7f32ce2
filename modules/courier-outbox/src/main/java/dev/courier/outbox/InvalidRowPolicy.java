package dev.courier.outbox;

import dev.courier.core.Choice;

/**
 * What the relay does with an outbox row Kafka refuses for good ({@code
 * outbox.invalid.row.policy}).
 */
public enum InvalidRowPolicy implements Choice {
  /** Stop the relay naming the row; nothing is skipped (the default). */
  FAIL("fail"),
  /** Send an envelope describing the row to {@code <prefix>.outbox.dlt} and go on. */
  DEAD_LETTER("dead-letter");

  private final String value;

  InvalidRowPolicy(String value) {
    this.value = value;
  }

  @Override
  public String value() {
    return value;
  }

  static InvalidRowPolicy of(String value) {
    return Choice.of(InvalidRowPolicy.class, value);
  }
}
