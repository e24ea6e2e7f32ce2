package dev.courier.benchmarks;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * A process's CPU time, second by second, for its first seconds: where a cold start's time goes (a
 * core busy compiling and loading, or a process waiting).
 */
final class CpuSampler {

  private final List<Double> shares = Collections.synchronizedList(new ArrayList<>());
  private volatile long lastCpuNanos = -1;
  private volatile long lastWallMillis;

  private CpuSampler() {}

  /** Samples {@code pid} once a second, {@code seconds} times, on a daemon thread. */
  static CpuSampler start(long pid, int seconds) {
    CpuSampler s = new CpuSampler();
    Thread t =
        new Thread(
            () -> {
              long before = Cores.cpuNanos(pid);
              long at = System.nanoTime();
              for (int i = 0; i < seconds; i++) {
                try {
                  Thread.sleep(1000); // a sampler's cadence, not a test wait
                } catch (InterruptedException e) {
                  return;
                }
                long cpu;
                try {
                  cpu = Cores.cpuNanos(pid);
                } catch (IllegalStateException e) {
                  return; // the process is gone
                }
                long now = System.nanoTime();
                s.shares.add((cpu - before) / (double) (now - at));
                s.lastWallMillis = System.currentTimeMillis();
                s.lastCpuNanos = cpu;
                before = cpu;
                at = now;
              }
            },
            "cpu-sampler");
    t.setDaemon(true);
    t.start();
    return s;
  }

  /**
   * The process's CPU time and the wall clock at the last sample, when the sampler ended: where a
   * warm process's cost per event starts ({@code cpuNanos} -1 when no sample was taken).
   */
  record Mark(long cpuNanos, long wallMillis) {}

  Mark last() {
    return new Mark(lastCpuNanos, lastWallMillis);
  }

  /** The share of one core the process used in each second sampled so far. */
  List<Double> shares() {
    synchronized (shares) {
      return List.copyOf(shares);
    }
  }
}
