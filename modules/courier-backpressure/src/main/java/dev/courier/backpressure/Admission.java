package dev.courier.backpressure;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * The answer of {@link AdmissionController#tryAdmit}. An admitted unit counts against the in-flight
 * bounds until it is closed, so use it in try-with-resources around the work; closing a rejection
 * does nothing.
 */
public final class Admission implements AutoCloseable {

  private final Optional<RejectReason> reason;
  private final String message;
  private final Duration retryAfter;
  private final Runnable release;
  private boolean released;

  private Admission(
      Optional<RejectReason> reason, String message, Duration retryAfter, Runnable release) {
    this.reason = reason;
    this.message = message;
    this.retryAfter = retryAfter;
    this.release = release;
  }

  static Admission admitted(Runnable release) {
    return new Admission(Optional.empty(), "admitted", Duration.ZERO, release);
  }

  static Admission rejected(RejectReason reason, String message, Duration retryAfter) {
    Objects.requireNonNull(reason, "reason");
    return new Admission(Optional.of(reason), message, retryAfter, () -> {});
  }

  public boolean admitted() {
    return reason.isEmpty();
  }

  /** Empty when admitted. */
  public Optional<RejectReason> reason() {
    return reason;
  }

  /** The decision in words, naming the group and the figures when backlog refused it. */
  public String message() {
    return message;
  }

  /** When to try again (zero when admitted). */
  public Duration retryAfter() {
    return retryAfter;
  }

  /** The HTTP status a front end answers: 200 when admitted, else 429. */
  public int httpStatus() {
    return admitted() ? 200 : 429;
  }

  /** The {@code Retry-After} header value in whole seconds, rounded up. */
  public String retryAfterHeader() {
    long seconds = (retryAfter.toMillis() + 999) / 1000;
    return String.valueOf(Math.max(admitted() ? 0 : 1, seconds));
  }

  @Override
  public synchronized void close() {
    if (!released) {
      released = true;
      release.run();
    }
  }

  @Override
  public String toString() {
    return admitted()
        ? "ADMIT"
        : "REJECT " + reason.get() + " (" + message + "), retry after " + retryAfter;
  }
}
