package dev.courier.benchmarks;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * Events as they arrive at a reader: per second of arrival, how many came and the worst delay from
 * when they were written. Filled by the reader's thread, read by the harness; a capture process
 * prints its seconds as {@link #LINE} lines and the harness reads them back ({@link #parse}).
 */
final class Arrivals {

  /**
   * The prefix of a printed second: {@code arrivals <epochSecond> <events> <worstMs> <lastMs>
   * <firstMs>}.
   */
  static final String LINE = "arrivals ";

  private final ConcurrentSkipListMap<Long, long[]> perSecond = new ConcurrentSkipListMap<>();
  private final AtomicLong count = new AtomicLong();
  private volatile long firstReceived;
  private volatile long lastReceived;

  /** Received events and the worst delay of a stretch of seconds, and the p99 of their worsts. */
  record Window(long received, long worst, long p99OfSeconds) {}

  /** {@code events} arrived at {@code nowMillis}, the oldest written {@code delayMs} before. */
  void record(long nowMillis, long events, long delayMs) {
    perSecond.compute(
        nowMillis / 1000,
        (s, v) -> {
          long[] cell = v == null ? new long[] {0, 0, 0, nowMillis} : v;
          cell[0] += events;
          cell[1] = Math.max(cell[1], delayMs);
          cell[2] = Math.max(cell[2], nowMillis);
          cell[3] = Math.min(cell[3], nowMillis);
          return cell;
        });
    if (firstReceived == 0 || nowMillis < firstReceived) {
      firstReceived = nowMillis;
    }
    lastReceived = Math.max(lastReceived, nowMillis);
    count.addAndGet(events);
  }

  long count() {
    return count.get();
  }

  long firstReceived() {
    return firstReceived;
  }

  long lastReceived() {
    return lastReceived;
  }

  boolean awaitCount(long n, Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (count.get() < n) {
      if (System.nanoTime() > deadline) {
        return false;
      }
      LockSupport.parkNanos(Duration.ofMillis(5).toNanos());
    }
    return true;
  }

  /**
   * The seconds of arrival from {@code fromMillis} (inclusive) to {@code toMillis} (exclusive);
   * none when the window is empty (a phase shorter than its first 10 s has no "after").
   */
  Window window(long fromMillis, long toMillis) {
    if (fromMillis / 1000 >= toMillis / 1000) {
      return new Window(0, 0, 0);
    }
    long received = 0;
    long worst = 0;
    List<Long> worsts = new ArrayList<>();
    for (long[] cell : perSecond.subMap(fromMillis / 1000, toMillis / 1000).values()) {
      received += cell[0];
      worst = Math.max(worst, cell[1]);
      worsts.add(cell[1]);
    }
    worsts.sort(null);
    long p99 =
        worsts.isEmpty()
            ? 0
            : worsts.get(Math.min(worsts.size() - 1, (int) Math.ceil(worsts.size() * 0.99) - 1));
    return new Window(received, worst, p99);
  }

  /**
   * Per second from {@code fromMillis}, {@code seconds} of them: the events that arrived in it and
   * the worst delay among them, as {@code events/worst ms}; where a start's delay builds up.
   */
  List<String> bySecond(long fromMillis, int seconds) {
    List<String> out = new ArrayList<>();
    for (long s = fromMillis / 1000; s < fromMillis / 1000 + seconds; s++) {
      long[] cell = perSecond.get(s);
      out.add(cell == null ? "0" : cell[0] + "/" + cell[1]);
    }
    return out;
  }

  /** The seconds before {@code beforeSecond}, as lines, removed once printed. */
  List<String> takeLines(long beforeSecond) {
    List<String> lines = new ArrayList<>();
    Map<Long, long[]> done = perSecond.headMap(beforeSecond);
    done.forEach(
        (s, cell) ->
            lines.add(LINE + s + " " + cell[0] + " " + cell[1] + " " + cell[2] + " " + cell[3]));
    done.clear();
    return lines;
  }

  /** The seconds a capture process printed, read back from its output. */
  static Arrivals parse(String output) {
    Arrivals a = new Arrivals();
    for (String line : output.split("\n")) {
      int at = line.indexOf(LINE);
      if (at < 0) {
        continue;
      }
      String[] f = line.substring(at + LINE.length()).trim().split(" ");
      // The second's first arrival, so a drain's rate is timed from its first event, not from the
      // end of that event's second.
      a.record(Long.parseLong(f[4]), 0, 0);
      a.record(Long.parseLong(f[3]), Long.parseLong(f[1]), Long.parseLong(f[2]));
    }
    return a;
  }
}
