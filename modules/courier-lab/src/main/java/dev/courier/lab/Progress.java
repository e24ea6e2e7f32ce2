package dev.courier.lab;

import java.io.PrintStream;
import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Predicate;

/**
 * Waits for an observable state of the lab's real parts, showing that it waits: on a terminal one
 * line that counts seconds, elsewhere (CI logs) a line every ten seconds.
 */
final class Progress {

  private static final long PROBE_INTERVAL_NANOS = TimeUnit.MILLISECONDS.toNanos(100);

  private final PrintStream out;
  private final boolean terminal;

  Progress(PrintStream out, boolean terminal) {
    this.out = out;
    this.terminal = terminal;
  }

  /**
   * Probes until {@code done} holds for the probed value and returns it.
   *
   * @throws TimeoutException naming {@code what} and the last value seen
   */
  <T> T await(String what, Duration timeout, Callable<T> probe, Predicate<T> done)
      throws Exception {
    long start = System.nanoTime();
    long deadline = start + timeout.toNanos();
    long lastShown = -1;
    T value = null;
    try {
      while (true) {
        value = probe.call();
        if (done.test(value)) {
          return value;
        }
        long now = System.nanoTime();
        if (now > deadline) {
          throw new TimeoutException(
              "no " + what + " within " + timeout.toSeconds() + " s (last seen: " + value + ")");
        }
        long seconds = TimeUnit.NANOSECONDS.toSeconds(now - start);
        if (seconds != lastShown && (terminal || (seconds > 0 && seconds % 10 == 0))) {
          lastShown = seconds;
          if (terminal) {
            out.print("\r      ... " + what + " (" + seconds + " s)   ");
          } else {
            out.println("      ... still waiting for " + what + " (" + seconds + " s)");
          }
          out.flush();
        }
        // Probing real state (a topic, a table, a process); the interval bounds the load it adds.
        LockSupport.parkNanos(PROBE_INTERVAL_NANOS);
      }
    } finally {
      if (terminal && lastShown >= 0) {
        out.print("\r" + " ".repeat(what.length() + 30) + "\r");
        out.flush();
      }
    }
  }
}
