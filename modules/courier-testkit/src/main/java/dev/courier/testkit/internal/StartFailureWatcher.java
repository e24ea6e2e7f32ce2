package dev.courier.testkit.internal;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Watches PostgreSQL's start-up log for pg_ctl's verdict that the server could not start, and then
 * interrupts the thread that waits for the server, which otherwise waits out its whole timeout.
 */
final class StartFailureWatcher {

  /** What {@code pg_ctl -w start} prints when the postmaster exits during start-up. */
  private static final String PG_CTL_FAILED = "could not start server";

  private final Path log;
  private final Thread waiter;
  private final CountDownLatch stopped = new CountDownLatch(1);
  private volatile boolean failed;

  private StartFailureWatcher(Path log, Thread waiter) {
    this.log = log;
    this.waiter = waiter;
  }

  static StartFailureWatcher watch(Path log, Thread waiter) {
    StartFailureWatcher watcher = new StartFailureWatcher(log, waiter);
    Thread thread = new Thread(watcher::run, "courier-postgres-start-watch");
    thread.setDaemon(true);
    thread.start();
    return watcher;
  }

  boolean failed() {
    return failed;
  }

  /** Stops watching and clears an interrupt this watcher may have delivered. */
  void stop() {
    stopped.countDown();
    if (failed) {
      Thread.interrupted();
    }
  }

  private void run() {
    try {
      // Poll the log at the cadence zonky polls the port; the latch ends the loop on success.
      while (!stopped.await(100, TimeUnit.MILLISECONDS)) {
        if (Files.readString(log, StandardCharsets.UTF_8).contains(PG_CTL_FAILED)) {
          failed = true;
          waiter.interrupt();
          return;
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (IOException e) {
      // The log is ours and in a temp directory; if it vanished, zonky's own timeout still applies.
    }
  }
}
