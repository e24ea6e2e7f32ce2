package dev.courier.benchmarks;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The peak heap of another JVM, sampled with {@code jcmd <pid> GC.heap_info} (the JDK's own tool)
 * every 200 ms on a background thread until closed.
 */
final class HeapSampler implements AutoCloseable {

  private static final Pattern USED = Pattern.compile("used (\\d+)K");

  private final long pid;
  private final AtomicLong peakBytes = new AtomicLong();
  private final Thread thread;
  private volatile boolean running = true;

  HeapSampler(long pid) {
    this.pid = pid;
    this.thread = new Thread(this::sample, "heap-sampler-" + pid);
    thread.setDaemon(true);
    thread.start();
  }

  long peakMiB() {
    return peakBytes.get() / (1024 * 1024);
  }

  private void sample() {
    String jcmd = Path.of(System.getProperty("java.home"), "bin", "jcmd").toString();
    while (running) {
      try {
        Process p =
            new ProcessBuilder(jcmd, String.valueOf(pid), "GC.heap_info")
                .redirectErrorStream(true)
                .start();
        try (InputStream in = p.getInputStream()) {
          long used = heapUsed(new String(in.readAllBytes(), StandardCharsets.UTF_8));
          peakBytes.accumulateAndGet(used, Math::max);
        }
        p.waitFor();
      } catch (IOException e) {
        return; // no jcmd: the peak stays 0 and the report says so
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
      // The sampling period, not a wait for a condition.
      LockSupport.parkNanos(Duration.ofMillis(200).toNanos());
    }
  }

  /**
   * Sums the generations' "used" (Serial, Parallel: young plus old; G1: one heap line); the
   * per-space lines and Metaspace are not heap totals.
   */
  static long heapUsed(String heapInfo) {
    long sum = 0;
    for (String line : heapInfo.split("\n")) {
      String t = line.trim();
      if (t.contains("space") || t.startsWith("Metaspace") || t.startsWith("class space")) {
        continue;
      }
      Matcher m = USED.matcher(t);
      if (m.find()) {
        sum += Long.parseLong(m.group(1)) * 1024;
      }
    }
    return sum;
  }

  @Override
  public void close() {
    running = false;
    try {
      thread.join(5_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
