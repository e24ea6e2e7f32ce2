package dev.courier.benchmarks;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * Processes on cores of their own ({@code taskset}) and the CPU time they used ({@code
 * /proc/<pid>/stat}), so a figure is the measured process's own and carries to other machines as
 * CPU time per event.
 */
final class Cores {

  private static final long TICKS_PER_SECOND = clockTicks();

  private Cores() {}

  /**
   * Whether to pin: Linux with {@code taskset} and at least two cores, unless {@code
   * -Dbench.pin=false}.
   */
  static boolean available() {
    return Boolean.parseBoolean(System.getProperty("bench.pin", "true"))
        && Runtime.getRuntime().availableProcessors() >= 2
        && Files.isExecutable(Path.of("/usr/bin/taskset"))
        && Files.isDirectory(Path.of("/proc/self"));
  }

  /** Every thread of the process, and what they start later, on this one core. */
  static void pin(long pid, int core) {
    run("taskset", "-a", "-p", "-c", String.valueOf(core), String.valueOf(pid));
  }

  /** This JVM on {@code core}: processes it starts after this inherit the core. */
  static void pinSelf(int core) {
    pin(ProcessHandle.current().pid(), core);
  }

  /** User plus system CPU time the process used so far, in nanoseconds. */
  static long cpuNanos(long pid) {
    try {
      String stat = Files.readString(Path.of("/proc", String.valueOf(pid), "stat"));
      // The command name (field 2) may hold spaces: fields are counted after its ')'.
      String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
      long ticks = Long.parseLong(f[11]) + Long.parseLong(f[12]); // utime, stime
      return ticks * 1_000_000_000L / TICKS_PER_SECOND;
    } catch (IOException e) {
      throw new IllegalStateException("cannot read the CPU time of process " + pid, e);
    }
  }

  private static long clockTicks() {
    try {
      String out = run("getconf", "CLK_TCK").trim();
      return out.isEmpty() ? 100 : Long.parseLong(out);
    } catch (RuntimeException e) {
      return 100;
    }
  }

  private static String run(String... command) {
    try {
      Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      if (!p.waitFor(Duration.ofSeconds(10).toMillis(), TimeUnit.MILLISECONDS)
          || p.exitValue() != 0) {
        throw new IllegalStateException(String.join(" ", command) + " failed: " + out);
      }
      return out;
    } catch (IOException e) {
      throw new IllegalStateException(String.join(" ", command) + " failed", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
