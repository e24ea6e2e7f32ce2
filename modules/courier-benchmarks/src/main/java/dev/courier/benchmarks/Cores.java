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
    return AVAILABLE;
  }

  // Decided once, before pinSelf: availableProcessors() follows this JVM's own affinity, so asked
  // after the harness pinned itself to core 0 it said 1, and no reader was ever moved to core 1.
  private static final boolean AVAILABLE =
      Boolean.parseBoolean(System.getProperty("bench.pin", "true"))
          && Runtime.getRuntime().availableProcessors() >= 2
          && Files.isExecutable(Path.of("/usr/bin/taskset"))
          && Files.isDirectory(Path.of("/proc/self"));

  /**
   * Every thread of the process, and what they start later, on this one core; checked in {@code
   * /proc}, since a figure measured on the wrong core looks just as plausible.
   */
  static void pin(long pid, int core) {
    run("taskset", "-a", "-p", "-c", String.valueOf(core), String.valueOf(pid));
    String allowed = allowedCores(pid);
    if (!allowed.equals(String.valueOf(core))) {
      throw new IllegalStateException(
          "process " + pid + " runs on cores " + allowed + " after pinning it to " + core);
    }
  }

  /** The cores the process may run on, as {@code /proc/<pid>/status} lists them ("0-1", "1"). */
  static String allowedCores(long pid) {
    try {
      return Files.readAllLines(Path.of("/proc", String.valueOf(pid), "status")).stream()
          .filter(line -> line.startsWith("Cpus_allowed_list:"))
          .map(line -> line.substring("Cpus_allowed_list:".length()).trim())
          .findFirst()
          .orElseThrow();
    } catch (IOException e) {
      throw new IllegalStateException("cannot read the cores of process " + pid, e);
    }
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
