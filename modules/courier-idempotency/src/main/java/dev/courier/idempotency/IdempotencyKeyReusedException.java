package dev.courier.idempotency;

import dev.courier.core.PermanentError;

/**
 * The operation key was already applied with a different payload: the producer reused a key for
 * other work. Nothing is applied; retrying cannot help.
 */
public class IdempotencyKeyReusedException extends RuntimeException implements PermanentError {
  private static final long serialVersionUID = 1L;

  private final String consumer;
  private final String operationKey;

  public IdempotencyKeyReusedException(String consumer, String operationKey, String coordinates) {
    super(
        "operation key '"
            + operationKey
            + "' was already applied by consumer "
            + consumer
            + " with a different payload; refusing "
            + coordinates
            + " (a key must identify one operation)");
    this.consumer = consumer;
    this.operationKey = operationKey;
  }

  public String consumer() {
    return consumer;
  }

  public String operationKey() {
    return operationKey;
  }

  @Override
  public String reason() {
    return "key-reused";
  }
}
