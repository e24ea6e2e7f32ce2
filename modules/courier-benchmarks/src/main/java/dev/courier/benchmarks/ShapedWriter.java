package dev.courier.benchmarks;

import dev.courier.outbox.OutboxEvent;
import dev.courier.outbox.OutboxWriter;
import java.sql.Connection;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import javax.sql.DataSource;

/**
 * Writes outbox events the way applications do: several threads, each committing its own
 * transactions of {@link Shape} size, paced together at an offered rate (or at full speed), each
 * event carrying its write time in the payload ({@code "at"}, epoch ms) for the reader to know its
 * age.
 */
final class ShapedWriter {

  /** How many events one business transaction writes. */
  enum Shape {
    /** One event per transaction: the outbox's usual shape. */
    ONE,
    /** 1 to 10 events per transaction, uniformly (5.5 on average). */
    MIX;

    int nextSize(SplittableRandom random) {
      return this == ONE ? 1 : 1 + random.nextInt(10);
    }

    static Shape parse(String s) {
      return valueOf(s.toUpperCase(java.util.Locale.ROOT));
    }
  }

  private ShapedWriter() {}

  /**
   * Writes {@code events} events over {@code threads} connections at {@code perSecond} in all (0:
   * as fast as they commit). With {@code asyncCommit} each session sets {@code synchronous_commit =
   * off}, so one core commits more than its disk flushes allow (to find the relay's ceiling, not
   * the writer's).
   */
  static void write(
      DataSource db,
      OutboxWriter writer,
      Shape shape,
      int perSecond,
      int events,
      int threads,
      boolean asyncCommit)
      throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      long start = System.nanoTime();
      List<Future<?>> parts = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        int share = events / threads + (t < events % threads ? 1 : 0);
        double rate = perSecond / (double) threads;
        int thread = t;
        parts.add(
            pool.submit(
                () -> {
                  writeShare(db, writer, shape, rate, share, thread, start, asyncCommit);
                  return null;
                }));
      }
      for (Future<?> part : parts) {
        part.get(2, TimeUnit.HOURS);
      }
    } finally {
      pool.shutdownNow();
    }
  }

  private static void writeShare(
      DataSource db,
      OutboxWriter writer,
      Shape shape,
      double perSecond,
      int events,
      int thread,
      long start,
      boolean asyncCommit)
      throws Exception {
    SplittableRandom random = new SplittableRandom(31L * thread + 7);
    try (Connection c = db.getConnection()) {
      if (asyncCommit) {
        try (Statement s = c.createStatement()) {
          s.execute("SET synchronous_commit = off");
        }
      }
      c.setAutoCommit(false);
      int written = 0;
      while (written < events) {
        if (perSecond > 0) {
          // The schedule, not the last commit, says when: a slow commit is caught up on after.
          long due = start + (long) (written * 1e9 / perSecond);
          for (long left = due - System.nanoTime(); left > 0; left = due - System.nanoTime()) {
            LockSupport.parkNanos(left);
          }
        }
        int size = Math.min(shape.nextSize(random), events - written);
        String at = "{\"amount\":10,\"at\":" + System.currentTimeMillis() + "}";
        List<OutboxEvent> batch = new ArrayList<>(size);
        for (int i = 0; i < size; i++) {
          batch.add(
              OutboxEvent.builder()
                  .aggregate("account", "acc-" + thread + "-" + (written + i) % 100)
                  .eventType("CreditRequested")
                  .json(at)
                  .build());
        }
        writer.writeAll(c, batch);
        c.commit();
        written += size;
      }
    }
  }
}
