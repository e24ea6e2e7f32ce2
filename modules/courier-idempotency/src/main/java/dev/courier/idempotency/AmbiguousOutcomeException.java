package dev.courier.idempotency;

/** Thrown by an {@link ExternalEffect} that cannot tell whether it happened, e.g. on a timeout. */
public class AmbiguousOutcomeException extends Exception {
  private static final long serialVersionUID = 1L;

  public AmbiguousOutcomeException(String message, Throwable cause) {
    super(message, cause);
  }
}
