package dev.courier.core;

import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Pattern;

/**
 * A named boundary in production code where a failure test may kill the process, for example
 * between a database commit and the Kafka offset commit.
 *
 * <p>Production code declares crash points as constants and calls {@link #reach()} at the boundary.
 * Unless a test armed this point (system property {@value #ARM_PROPERTY} or environment variable
 * {@value #ARM_ENV} in a worker JVM started by the testkit), {@code reach()} is a single volatile
 * read and returns. When armed, the process announces the point on standard output and stops there
 * until the supervising test kills it with SIGKILL, so nothing after the boundary ever runs.
 *
 * <p>The arming value is {@code name} (the first time the point is reached) or {@code name#n} (the
 * n-th time), so a test can let a few records through before the crash.
 */
public final class CrashPoint {

  /** System property that arms a crash point in a worker JVM. */
  public static final String ARM_PROPERTY = "courier.crash.point";

  /** Environment variable read when {@link #ARM_PROPERTY} is not set. */
  public static final String ARM_ENV = "COURIER_CRASH_POINT";

  /** Prefix of the line printed when an armed point is reached; the testkit waits for it. */
  public static final String REACHED_MARKER = "COURIER-CRASH-POINT-REACHED ";

  private static final Pattern NAME = Pattern.compile("[a-z0-9]+(-[a-z0-9]+)*");
  private static final ConcurrentMap<String, CrashPoint> POINTS = new ConcurrentHashMap<>();
  private static final CrashArming ARMING = CrashArming.fromEnvironment();

  private final String name;
  private final AtomicLong reached = new AtomicLong();

  private CrashPoint(String name) {
    this.name = name;
  }

  /**
   * Returns the crash point with this name, the same instance for every caller, so the count of
   * {@code name#n} spans all the code sites that share the name.
   *
   * @param name lower-case words joined by hyphens, e.g. {@code
   *     after-db-commit-before-offset-commit}
   */
  public static CrashPoint named(String name) {
    Objects.requireNonNull(name, "name");
    if (!NAME.matcher(name).matches()) {
      throw new IllegalArgumentException(
          "crash point name '" + name + "' must be lower-case words joined by hyphens");
    }
    return POINTS.computeIfAbsent(name, CrashPoint::new);
  }

  public String name() {
    return name;
  }

  /** The value that arms this point on its {@code occurrence}-th reach (1 = the first). */
  public String armingValue(int occurrence) {
    if (occurrence < 1) {
      throw new IllegalArgumentException("occurrence must be 1 or more, was " + occurrence);
    }
    return occurrence == 1 ? name : name + "#" + occurrence;
  }

  /** Marks that execution reached this boundary; stops the process here only when armed. */
  public void reach() {
    if (!ARMING.targets(name)) {
      return;
    }
    if (reached.incrementAndGet() == ARMING.occurrence()) {
      ARMING.stopHere(name);
    }
  }

  @Override
  public String toString() {
    return "CrashPoint[" + name + "]";
  }
}
