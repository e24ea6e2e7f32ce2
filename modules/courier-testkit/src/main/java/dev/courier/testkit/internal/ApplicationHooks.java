package dev.courier.testkit.internal;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.locks.LockSupport;

/**
 * Lets the applications a test started stop before the infrastructure they use. The JVM runs its
 * shutdown hooks all at once: without this, Spring's hook (closing a {@code @SpringBootTest}
 * context with Courier's relay and consumers in it) races the testkit's, the broker goes first, and
 * the application's last commits and position writes wait on a broker that is gone until the build
 * kills the JVM.
 */
final class ApplicationHooks {

  /** Spring Boot's and Spring Framework's shutdown hook threads. */
  private static final Set<String> NAMES =
      Set.of("SpringApplicationShutdownHook", "SpringContextShutdownHook");

  /** Longer than Spring Boot's default grace per phase (30 s), shorter than a build's patience. */
  private static final Duration LONGEST = Duration.ofSeconds(45);

  /** How long to look for them: the JVM starts all hooks within microseconds of each other. */
  private static final Duration LOOK = Duration.ofMillis(200);

  private ApplicationHooks() {}

  static void awaitOthers() {
    long deadline = System.nanoTime() + LONGEST.toNanos();
    for (Thread thread : find()) {
      long left = Math.max(1, (deadline - System.nanoTime()) / 1_000_000);
      try {
        thread.join(left);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
  }

  /**
   * The JVM starts every hook thread one after the other, in no set order: one started after this
   * one is not alive yet when this one looks, so it looks for a moment.
   */
  private static List<Thread> find() {
    long until = System.nanoTime() + LOOK.toNanos();
    List<Thread> found = new ArrayList<>();
    while (true) {
      found.clear();
      for (Thread thread : Thread.getAllStackTraces().keySet()) {
        if (thread != Thread.currentThread() && NAMES.contains(thread.getName())) {
          found.add(thread);
        }
      }
      if (!found.isEmpty() || System.nanoTime() > until) {
        return found;
      }
      LockSupport.parkNanos(Duration.ofMillis(10).toNanos());
    }
  }
}
