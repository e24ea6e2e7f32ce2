package dev.courier.benchmarks;

import dev.courier.outbox.OutboxEvent;
import dev.courier.outbox.OutboxWriter;
import dev.courier.testkit.TestDatabase;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Scope;
import java.sql.Connection;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.LockSupport;
import javax.sql.DataSource;

/**
 * The rows every outbox run writes, through Courier's writer: 500 a transaction at full speed, or
 * paced; the relay and each baseline get the same.
 */
final class OutboxWrites {

  static final int BATCH = 500;
  static final String PAYLOAD_JSON = "{\"account\":17,\"amount\":10,\"currency\":\"EUR\"}";

  private OutboxWrites() {}

  /** How events are written: at full speed, 500 a transaction, or paced. */
  @FunctionalInterface
  interface Pacing {
    void write(TestDatabase db, int events) throws Exception;

    Pacing FULL_SPEED = (db, events) -> writeEvents(db.dataSource(), events);

    /** A commit of {@code perSecond / 100} events every 10 ms, until {@code events} are written. */
    static Pacing paced(int perSecond) {
      return (db, events) -> writePaced(db.dataSource(), events, perSecond);
    }
  }

  /**
   * Offered load: {@code perSecond / 100} events committed every 10 ms, each with its write time in
   * the payload ({@code "at"}, epoch ms) for whoever reads it to know its age. The generator parks
   * between ticks: on 2 cores a spinning one takes a whole core from what it measures.
   */
  static void writePaced(DataSource db, int events, int perSecond) throws Exception {
    writePaced(db, OutboxWriter.create(), events, perSecond);
  }

  static void writePaced(DataSource db, OutboxWriter writer, int events, int perSecond)
      throws Exception {
    int perTick = Math.max(1, perSecond / 100);
    try (Connection c = db.getConnection()) {
      c.setAutoCommit(false);
      long start = System.nanoTime();
      for (int written = 0, tick = 0; written < events; tick++) {
        long due = start + tick * 10_000_000L;
        for (long left = due - System.nanoTime(); left > 0; left = due - System.nanoTime()) {
          LockSupport.parkNanos(left);
        }
        List<OutboxEvent> batch = new ArrayList<>(perTick);
        String at = "{\"amount\":10,\"at\":" + System.currentTimeMillis() + "}";
        for (int i = 0; i < perTick && written < events; i++, written++) {
          batch.add(
              OutboxEvent.builder()
                  .aggregate("account", "acc-" + i)
                  .eventType("CreditRequested")
                  .json(at)
                  .build());
        }
        writer.writeAll(c, batch);
        c.commit();
      }
    }
  }

  /** Events through Courier's writer, 500 a transaction, as the relay's measured runs get them. */
  static void writeEvents(DataSource db, int events) throws Exception {
    writeEvents(db, OutboxWriter.create(), events);
  }

  static void writeEvents(DataSource db, OutboxWriter writer, int events) throws Exception {
    writeEvents(db, writer, events, null);
  }

  /**
   * As {@link #writeEvents(DataSource, OutboxWriter, int)}, each transaction inside a request span
   * of {@code requests} when given (the application's span an outbox row continues).
   */
  static void writeEvents(DataSource db, OutboxWriter writer, int events, Tracer requests)
      throws Exception {
    try (Connection c = db.getConnection()) {
      c.setAutoCommit(false);
      List<OutboxEvent> batch = new ArrayList<>(BATCH);
      for (int i = 0; i < events; i++) {
        batch.add(
            OutboxEvent.builder()
                .aggregate("account", "acc-" + (i % 100))
                .eventType("CreditRequested")
                .json(PAYLOAD_JSON)
                .build());
        if (batch.size() == BATCH || i == events - 1) {
          Span request =
              requests == null ? null : requests.spanBuilder("POST /credits").startSpan();
          try (Scope ignored = request == null ? Scope.noop() : request.makeCurrent()) {
            writer.writeAll(c, batch);
            c.commit();
          } finally {
            if (request != null) {
              request.end();
            }
          }
          batch.clear();
        }
      }
    }
  }
}
