package dev.courier.testkit;

import dev.courier.core.CrashPoint;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** A running child JVM started by {@link JvmWorker}; its output is forwarded to the test log. */
public final class WorkerProcess implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(WorkerProcess.class);
  private static final int KEPT_LINES = 200;

  /** 128 + SIGKILL(9), the status a shell reports for a process killed with kill -9. */
  public static final int SIGKILL_EXIT_STATUS = 137;

  /** 128 + SIGTERM(15): a JVM that ran its shutdown hooks after SIGTERM exits with this. */
  public static final int SIGTERM_EXIT_STATUS = 143;

  private final String name;
  private final Process process;
  private final String armedAt;
  private final Deque<String> lastLines = new ArrayDeque<>();
  private final CountDownLatch reachedCrashPoint = new CountDownLatch(1);
  private final Thread pump;

  private WorkerProcess(String name, Process process, String armedAt) {
    this.name = name;
    this.process = process;
    this.armedAt = armedAt;
    this.pump = new Thread(this::pumpOutput, "worker-output-" + name);
    this.pump.setDaemon(true);
    this.pump.start();
  }

  static WorkerProcess start(
      String name, List<String> command, Map<String, String> environment, String armedAt) {
    ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
    builder.environment().remove(CrashPoint.ARM_ENV);
    builder.environment().putAll(environment);
    try {
      Process process = builder.start();
      LOG.info(
          "started worker {} (pid {}){}",
          name,
          process.pid(),
          armedAt == null ? "" : ", armed at crash point " + armedAt);
      return new WorkerProcess(name, process, armedAt);
    } catch (IOException e) {
      throw new IllegalStateException("could not start worker " + name + ": " + e.getMessage(), e);
    }
  }

  public long pid() {
    return process.pid();
  }

  public boolean isAlive() {
    return process.isAlive();
  }

  /**
   * Waits until the worker stands at its armed crash point.
   *
   * @throws CrashPointNotReachedException if it exits first or the time runs out
   */
  public void awaitCrashPoint(Duration timeout) {
    if (armedAt == null) {
      throw new IllegalStateException("worker " + name + " was started without a crash point");
    }
    try {
      long deadline = System.nanoTime() + timeout.toNanos();
      while (!reachedCrashPoint.await(50, TimeUnit.MILLISECONDS)) {
        if (!process.isAlive()) {
          pump.join(TimeUnit.SECONDS.toMillis(5));
          if (reachedCrashPoint.getCount() == 0) {
            return;
          }
          throw new CrashPointNotReachedException(
              "worker "
                  + name
                  + " exited with status "
                  + process.exitValue()
                  + " before reaching crash point "
                  + armedAt
                  + "; its last output:\n"
                  + output());
        }
        if (System.nanoTime() > deadline) {
          throw new CrashPointNotReachedException(
              "worker "
                  + name
                  + " did not reach crash point "
                  + armedAt
                  + " within "
                  + timeout
                  + "; its last output:\n"
                  + output());
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while waiting for worker " + name, e);
    }
  }

  /** Kills the worker with SIGKILL (no shutdown hooks, no flush) and waits until it is gone. */
  public int kill() {
    // On Unix, Process.destroyForcibly() sends SIGKILL.
    process.destroyForcibly();
    try {
      int status = process.waitFor();
      pump.join(TimeUnit.SECONDS.toMillis(5));
      LOG.info("worker {} killed with SIGKILL, exit status {}", name, status);
      return status;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while killing worker " + name, e);
    }
  }

  /**
   * Sends SIGTERM, as an orchestrator stopping a container does, and waits for the worker to run
   * its shutdown hooks and exit.
   *
   * @return its exit status ({@link #SIGTERM_EXIT_STATUS} for a JVM stopped by the signal)
   */
  public int terminate(Duration timeout) {
    // SIGTERM through the handle: Process.destroy() would also close the output pipe, and what the
    // worker prints while it shuts down is exactly what callers want to see.
    process.toHandle().destroy();
    return awaitExit(timeout);
  }

  /**
   * Freezes the process with SIGSTOP, as a stalled node or a long GC pause does: its connections
   * stay open, nothing it owns is released, and it answers nothing until {@link #thaw()}.
   */
  public void freeze() {
    signal("STOP");
  }

  /** Lets a frozen process run again (SIGCONT). */
  public void thaw() {
    signal("CONT");
  }

  private void signal(String name) {
    try {
      Process kill = new ProcessBuilder("kill", "-" + name, String.valueOf(pid())).start();
      if (kill.waitFor() != 0) {
        throw new IllegalStateException("kill -" + name + " " + pid() + " failed");
      }
      LOG.info("worker {} sent SIG{}", this.name, name);
    } catch (IOException e) {
      throw new IllegalStateException("cannot signal worker " + this.name + ": " + e, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while signalling worker " + this.name, e);
    }
  }

  /** Waits for the armed crash point, then kills the worker there; returns the exit status. */
  public int killAtCrashPoint(Duration timeout) {
    awaitCrashPoint(timeout);
    return kill();
  }

  /**
   * Waits for the worker to finish on its own.
   *
   * @return its exit status
   * @throws IllegalStateException if it is still running after the timeout (it is killed then)
   */
  public int awaitExit(Duration timeout) {
    try {
      if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
        kill();
        throw new IllegalStateException(
            "worker "
                + name
                + " did not finish within "
                + timeout
                + "; its last output:\n"
                + output());
      }
      pump.join(TimeUnit.SECONDS.toMillis(5));
      return process.exitValue();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while waiting for worker " + name, e);
    }
  }

  /** The last lines the worker printed (standard output and error). */
  public synchronized String output() {
    return String.join("\n", lastLines);
  }

  @Override
  public void close() {
    if (process.isAlive()) {
      kill();
    }
  }

  private void pumpOutput() {
    try (BufferedReader reader =
        new BufferedReader(
            new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
      String line;
      while ((line = reader.readLine()) != null) {
        remember(line);
        LOG.info("[{}] {}", name, line);
        if (line.startsWith(CrashPoint.REACHED_MARKER)) {
          reachedCrashPoint.countDown();
        }
      }
    } catch (IOException e) {
      // The stream closes when the process is killed; nothing is lost that matters then.
      LOG.debug("output of worker {} ended: {}", name, e.toString());
    }
  }

  private synchronized void remember(String line) {
    if (lastLines.size() == KEPT_LINES) {
      lastLines.removeFirst();
    }
    lastLines.addLast(line);
  }
}
