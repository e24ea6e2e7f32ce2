package dev.courier.testkit.internal;

import dev.courier.core.internal.Failures;
import dev.courier.testkit.InfraStartupException;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.utility.TestcontainersConfiguration;

/**
 * What every container of the Testcontainers backend shares: a start that fails naming the cause
 * and quoting the container's log, and reuse between runs as Testcontainers defines it (on only
 * where {@code ~/.testcontainers.properties} says {@code testcontainers.reuse.enable=true}; reused
 * containers are left running at exit, all others are stopped).
 */
final class Containers {

  private static final int LOG_TAIL_LINES = 15;

  private Containers() {}

  /** Starts the container or fails naming it, the cause and the end of its log. */
  static void start(GenericContainer<?> container, String what) {
    try {
      container.start();
    } catch (RuntimeException e) {
      String log = logTail(container);
      container.stop();
      throw new InfraStartupException(
          what + " failed to start: " + Failures.describe(e) + "; container log ends with:\n" + log,
          e);
    }
  }

  static boolean reuseEnabled() {
    return TestcontainersConfiguration.getInstance().environmentSupportsReuse();
  }

  static String logTail(GenericContainer<?> container) {
    try {
      String[] lines = container.getLogs().split("\n");
      int from = Math.max(0, lines.length - LOG_TAIL_LINES);
      return String.join("\n", java.util.Arrays.copyOfRange(lines, from, lines.length));
    } catch (RuntimeException e) {
      return "(no container log: " + e.getMessage() + ")";
    }
  }
}
