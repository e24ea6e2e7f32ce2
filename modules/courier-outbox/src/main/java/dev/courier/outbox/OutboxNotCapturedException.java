package dev.courier.outbox;

/**
 * The writer refused an event: no replication slot and publication capture the outbox table yet, so
 * an event committed now would never be published ({@link OutboxCapture}). Nothing was written; the
 * caller's transaction is the caller's to roll back. It passes once the relay has started once, or
 * {@link OutboxSchema#prepareCapture} ran with a role that may create them.
 */
public final class OutboxNotCapturedException extends IllegalStateException {

  private static final long serialVersionUID = 1L;

  public OutboxNotCapturedException(String message) {
    super(message);
  }
}
