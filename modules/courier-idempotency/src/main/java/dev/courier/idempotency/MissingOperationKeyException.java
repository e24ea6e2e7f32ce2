package dev.courier.idempotency;

import dev.courier.core.PermanentError;

/** The record carries no operation key where the extractor looks; it cannot be deduplicated. */
public class MissingOperationKeyException extends RuntimeException implements PermanentError {
  private static final long serialVersionUID = 1L;

  public MissingOperationKeyException(String where, String coordinates) {
    super(
        "record "
            + coordinates
            + " has no operation key in "
            + where
            + "; the key must be set by the producer, it is never generated on delivery");
  }

  @Override
  public String reason() {
    return "missing-key";
  }
}
