package dev.courier.outbox.internal;

/**
 * Something the relay depends on is unreachable or not ready (PostgreSQL down or starting, Kafka
 * not answering): a reason to wait and try again, never to exit. The message says what, where and
 * why, for /health and the log.
 */
public final class Outage extends Exception {
  private static final long serialVersionUID = 1L;

  public Outage(String message, Throwable cause) {
    super(message, cause);
  }
}
