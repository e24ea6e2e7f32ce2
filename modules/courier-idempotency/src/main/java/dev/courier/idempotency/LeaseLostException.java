package dev.courier.idempotency;

/**
 * The caller's lease on an effect ended and another worker took it over: its completion, release or
 * unknown mark is refused so it cannot overwrite the new owner's outcome.
 */
public class LeaseLostException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public LeaseLostException(String key, String action) {
    super(
        "cannot "
            + action
            + " effect '"
            + key
            + "': the lease expired and another worker owns it now (or it was already settled)");
  }
}
