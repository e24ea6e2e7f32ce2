package dev.courier.retry;

import java.util.concurrent.TimeoutException;

/**
 * The handler did not finish within {@code retry.handler.timeout.ms} (or a shutdown or rebalance
 * would not wait longer): the call was interrupted and abandoned. Transient by default, like any
 * timeout; the work may still have happened, which is why the endpoint must be idempotent.
 */
public final class HandlerTimeoutException extends TimeoutException {

  public HandlerTimeoutException(String message) {
    super(message);
  }
}
