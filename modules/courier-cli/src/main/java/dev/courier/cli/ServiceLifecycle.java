package dev.courier.cli;

import java.io.PrintStream;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;
import org.apache.kafka.common.config.ConfigException;

/**
 * Runs a long-lived service until the process is asked to stop (SIGTERM or SIGINT, as an
 * orchestrator or Ctrl-C does) or the service fails. On a signal the service is closed inside the
 * JVM's shutdown, so in-flight work is finished and positions are stored before the exit.
 */
final class ServiceLifecycle {

  private ServiceLifecycle() {}

  /**
   * @param failure the error that stopped the service on its own, if any
   * @return 2 when it stopped on a wrong setting it found while running, 1 when it failed
   *     otherwise; on a signal the JVM exits with 143 once it is closed
   */
  static int runUntilStopped(
      String name, AutoCloseable service, Supplier<Optional<Throwable>> failure, PrintStream out)
      throws InterruptedException {
    AtomicBoolean closed = new AtomicBoolean();
    CountDownLatch signalled = new CountDownLatch(1);
    Runnable close =
        () -> {
          if (closed.compareAndSet(false, true)) {
            try {
              service.close();
              out.println("courier " + name + ": stopped cleanly");
            } catch (Exception e) {
              out.println("courier " + name + ": error while stopping: " + e);
            }
            out.flush();
          }
        };
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  signalled.countDown();
                  out.println("courier " + name + ": stopping");
                  close.run();
                },
                "courier-" + name + "-shutdown"));
    while (!signalled.await(200, TimeUnit.MILLISECONDS)) {
      Optional<Throwable> failed = failure.get();
      if (failed.isPresent()) {
        Throwable why = failed.get();
        close.run();
        if (why instanceof ConfigException) {
          // Found once the service could look (the database's wal_level, refused credentials).
          out.println("courier " + name + ": configuration error: " + why.getMessage());
          return Courier.CONFIG_ERROR;
        }
        out.println("courier " + name + ": failed: " + why);
        why.printStackTrace(System.err);
        return 1;
      }
    }
    // The signal's shutdown closes the service; this thread only has to stay out of its way.
    return 0;
  }
}
