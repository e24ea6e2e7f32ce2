package dev.courier.benchmarks;

import dev.courier.testkit.JvmWorker;
import dev.courier.testkit.WorkerProcess;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.LockSupport;

/**
 * How fast one core runs, four times a second: a process of its own on that core does a fixed piece
 * of work and prints the CPU time it took. On this machine's host the same core ran such work
 * 1.5-1.8x slower for a minute or more at a time, with no steal in {@code /proc/stat} and the core
 * otherwise idle; a reader's CPU per event says as much about the host as about the reader unless
 * it is read against this. The work runs interpreted ({@code -Xint}): in one such slow stretch this
 * loop interpreted slowed 1.65x and a Perl loop 1.5x, the same loop compiled by C2 into a few
 * registers 1.1x, and the relay in an earlier one 2x. The probe takes under 1% of the core.
 */
final class CoreProbe implements AutoCloseable {

  static final CoreProbe NONE = new CoreProbe(null);

  /** One piece of work: about 1.7 ms of a core here, interpreted. */
  static final int UNIT = 100_000;

  private static final String LINE = "probe ";

  private final WorkerProcess process;

  private CoreProbe(WorkerProcess process) {
    this.process = process;
  }

  /** A probe on {@code core}, started and pinned there before any reader. */
  static CoreProbe start(int core) {
    WorkerProcess p =
        JvmWorker.of(CoreProbe.class)
            .name("core-probe")
            .jvmOption("-Xint")
            .jvmOption("-Xmx32m")
            .jvmOption("-XX:ActiveProcessorCount=1")
            .start();
    Cores.pin(p.pid(), core);
    return new CoreProbe(p);
  }

  /**
   * The median CPU time of one unit, in ms, among the samples taken from {@code fromMillis} to
   * {@code toMillis} (wall clock); NaN without a probe or a sample.
   */
  double medianMillis(long fromMillis, long toMillis) {
    return process == null ? Double.NaN : median(process.output(), fromMillis, toMillis);
  }

  static double median(String output, long fromMillis, long toMillis) {
    List<Long> nanos = new ArrayList<>();
    for (String line : output.split("\n")) {
      String[] f = line.trim().split(" ");
      if (f.length == 3 && (f[0] + " ").equals(LINE)) {
        long at = Long.parseLong(f[1]);
        if (at >= fromMillis && at <= toMillis) {
          nanos.add(Long.parseLong(f[2]));
        }
      }
    }
    if (nanos.isEmpty()) {
      return Double.NaN;
    }
    nanos.sort(null);
    int n = nanos.size();
    double mid = n % 2 == 1 ? nanos.get(n / 2) : (nanos.get(n / 2 - 1) + nanos.get(n / 2)) / 2.0;
    return mid / 1e6;
  }

  @Override
  public void close() {
    if (process != null) {
      process.kill();
    }
  }

  /** The probe process: samples until killed. */
  public static void main(String[] args) {
    ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    long sink = 0;
    while (true) {
      long before = threads.getCurrentThreadCpuTime();
      sink += work(sink | 1);
      long took = threads.getCurrentThreadCpuTime() - before;
      System.out.println(LINE + System.currentTimeMillis() + " " + took + (sink == 42 ? " " : ""));
      LockSupport.parkNanos(Duration.ofMillis(250).toNanos()); // a sampler's cadence
    }
  }

  /** xorshift steps; the result reaches the output through sink, should a compiler run it. */
  private static long work(long seed) {
    long x = seed;
    for (int i = 0; i < UNIT; i++) {
      x ^= x << 13;
      x ^= x >>> 7;
      x ^= x << 17;
    }
    return x;
  }
}
