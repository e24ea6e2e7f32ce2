package dev.courier.testkit.internal;

import org.testcontainers.containers.GenericContainer;
import org.testcontainers.utility.TestcontainersConfiguration;

/**
 * Container reuse between runs, as Testcontainers defines it: on only where the user's {@code
 * ~/.testcontainers.properties} says {@code testcontainers.reuse.enable=true}. Reused containers
 * are left running at exit; all others are stopped.
 */
final class ContainerReuse {

  private static final int LOG_TAIL_LINES = 15;

  private ContainerReuse() {}

  static boolean enabled() {
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
