package dev.courier.core;

/**
 * Marks an exception that retrying can never cure (bad input, a reused key, a missing key): the
 * retry layer sends such records straight to the dead-letter topic with the reason.
 */
public interface PermanentError {

  /** A short, stable reason for dashboards and the dead-letter headers, e.g. {@code key-reused}. */
  String reason();
}
