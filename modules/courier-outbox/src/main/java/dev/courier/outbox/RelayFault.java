package dev.courier.outbox;

/**
 * Something the relay must stop for, rather than wait out: a row Kafka refuses under {@code
 * outbox.invalid.row.policy=fail}, a dead letter that cannot be written. The message names the row.
 */
public final class RelayFault extends IllegalStateException {
  private static final long serialVersionUID = 1L;

  public RelayFault(String message) {
    super(message);
  }
}
