package dev.courier.idempotency;

/** The consumer stopped at a record its failure handler did not take care of. */
public class RecordProcessingException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public RecordProcessingException(String message, Throwable cause) {
    super(message, cause);
  }
}
