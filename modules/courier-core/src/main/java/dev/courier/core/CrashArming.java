package dev.courier.core;

import java.io.PrintStream;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/** Which crash point, if any, this JVM was armed with, and what happens when it is reached. */
final class CrashArming {

  /** How long an armed process waits for its supervisor's SIGKILL before halting by itself. */
  static final String WAIT_PROPERTY = "courier.crash.wait.ms";

  private static final long DEFAULT_WAIT_MS = 120_000;
  private static final int HALT_STATUS = 137;

  private final String target;
  private final long occurrence;
  private final long waitMs;

  private CrashArming(String target, long occurrence, long waitMs) {
    this.target = target;
    this.occurrence = occurrence;
    this.waitMs = waitMs;
  }

  static CrashArming fromEnvironment() {
    String value = System.getProperty(CrashPoint.ARM_PROPERTY);
    if (value == null || value.isBlank()) {
      value = System.getenv(CrashPoint.ARM_ENV);
    }
    long waitMs = Long.getLong(WAIT_PROPERTY, DEFAULT_WAIT_MS);
    return parse(value, waitMs);
  }

  static CrashArming parse(String value, long waitMs) {
    if (value == null || value.isBlank()) {
      return new CrashArming(null, 0, waitMs);
    }
    String trimmed = value.trim();
    int hash = trimmed.indexOf('#');
    if (hash < 0) {
      return new CrashArming(trimmed, 1, waitMs);
    }
    String occurrence = trimmed.substring(hash + 1);
    try {
      long n = Long.parseLong(occurrence);
      if (n < 1) {
        throw new NumberFormatException();
      }
      return new CrashArming(trimmed.substring(0, hash), n, waitMs);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(
          CrashPoint.ARM_PROPERTY
              + "='"
              + value
              + "': the occurrence after '#' must be a whole number of 1 or more",
          e);
    }
  }

  boolean targets(String name) {
    return target != null && target.equals(name);
  }

  long occurrence() {
    return occurrence;
  }

  String target() {
    return target;
  }

  /**
   * Announces the point and parks the calling thread. The supervisor kills the whole process with
   * SIGKILL, which is the failure being simulated; halting by ourselves is only a safety net so an
   * unsupervised process never hangs forever.
   */
  void stopHere(String name) {
    PrintStream out = System.out;
    out.println(CrashPoint.REACHED_MARKER + name + " pid=" + ProcessHandle.current().pid());
    out.flush();
    try {
      new CountDownLatch(1).await(waitMs, TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    Runtime.getRuntime().halt(HALT_STATUS);
  }
}
