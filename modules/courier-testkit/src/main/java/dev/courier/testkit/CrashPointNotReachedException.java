package dev.courier.testkit;

/** A worker armed at a crash point exited, or timed out, before reaching it. */
public class CrashPointNotReachedException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public CrashPointNotReachedException(String message) {
    super(message);
  }
}
