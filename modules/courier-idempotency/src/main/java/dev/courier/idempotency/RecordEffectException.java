package dev.courier.idempotency;

/** The business effect of a record failed; its transaction was rolled back. */
public class RecordEffectException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public RecordEffectException(String message, Throwable cause) {
    super(message, cause);
  }
}
