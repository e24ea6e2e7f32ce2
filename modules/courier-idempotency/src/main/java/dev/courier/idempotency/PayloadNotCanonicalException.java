package dev.courier.idempotency;

import dev.courier.core.PermanentError;

/**
 * The payload cannot be put in the canonical form its fingerprint is taken from (e.g. not JSON for
 * {@link CanonicalForm#json()}): the record cannot be checked against earlier deliveries, so it is
 * refused alone and nothing is applied. Retrying the same bytes cannot help.
 */
public class PayloadNotCanonicalException extends RuntimeException implements PermanentError {
  private static final long serialVersionUID = 1L;

  public PayloadNotCanonicalException(String coordinates, Throwable cause) {
    super(
        "payload of "
            + coordinates
            + " cannot be put in canonical form for its fingerprint: "
            + cause.getMessage(),
        cause);
  }

  @Override
  public String reason() {
    return "not-canonical";
  }
}
