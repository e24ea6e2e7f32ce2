package dev.courier.outbox;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.courier.core.CourierTracing;
import dev.courier.core.internal.Traces;
import dev.courier.outbox.internal.Capture;
import dev.courier.outbox.internal.TraceColumn;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.sql.Types;
import java.util.ArrayList;
import java.util.List;

/** {@link OutboxWriter} for PostgreSQL; all its SQL is here. */
final class PostgresOutboxWriter implements OutboxWriter {

  private static final ObjectMapper JSON = new ObjectMapper();
  private final boolean removeAfterInsert;
  private final OutboxShards shards;
  private final String[] inserts;
  private final String[] deletes;
  private final Counter[] written;
  private final Traces traces;

  /** Per shard, when its table was last found captured (0: not yet): checked again after that. */
  private final long[] capturedAt;

  private final boolean checkCapture;

  /** The slot and publication the relays read through, when the writer was told; else null. */
  private final OutboxCapture capture;

  /** How long a table found captured is not checked again. */
  private static final long RECHECK_NANOS = java.util.concurrent.TimeUnit.SECONDS.toNanos(30);

  PostgresOutboxWriter(
      boolean removeAfterInsert,
      OutboxShards shards,
      MeterRegistry registry,
      Traces traces,
      boolean checkCapture,
      OutboxCapture capture) {
    this.removeAfterInsert = removeAfterInsert;
    this.checkCapture = checkCapture;
    this.capture = capture;
    this.capturedAt = new long[shards.count()];
    this.traces = traces;
    this.shards = shards;
    this.inserts = new String[shards.count()];
    this.deletes = new String[shards.count()];
    this.written = new Counter[shards.count()];
    for (int shard = 0; shard < shards.count(); shard++) {
      String table = shards.table(shard);
      inserts[shard] =
          "INSERT INTO "
              + table
              + " (id, aggregatetype, aggregateid, type, payload, content_type, headers, deadline"
              + (traces.enabled() ? ", " + CourierTracing.OUTBOX_COLUMN : "")
              + ") VALUES (?, ?, ?, ?, ?, ?, ?::jsonb, ?"
              + (traces.enabled() ? ", ?" : "")
              + ")";
      deletes[shard] = "DELETE FROM " + table + " WHERE id = ?";
      written[shard] =
          Counter.builder("courier.outbox.events.written")
              .tag("table", table)
              .description(
                  "Events written into the outbox in the caller's transaction (rolled-back ones"
                      + " included; the relay counts what it publishes).")
              .register(registry);
    }
  }

  @Override
  public void write(Connection connection, OutboxEvent event) throws SQLException {
    writeAll(connection, List.of(event));
  }

  @Override
  public void writeAll(Connection connection, List<OutboxEvent> events) throws SQLException {
    if (connection.getAutoCommit()) {
      throw new IllegalStateException(
          "the outbox must be written inside the caller's transaction (autocommit is on)");
    }
    if (shards.count() == 1) {
      writeShard(connection, 0, events);
      return;
    }
    // Per shard in the events' order: a key is in one shard, so its events keep their order.
    List<List<OutboxEvent>> byShard = new ArrayList<>(shards.count());
    for (int shard = 0; shard < shards.count(); shard++) {
      byShard.add(new ArrayList<>());
    }
    for (OutboxEvent event : events) {
      byShard.get(shards.shardOf(event.aggregateId())).add(event);
    }
    for (int shard = 0; shard < shards.count(); shard++) {
      if (!byShard.get(shard).isEmpty()) {
        writeShard(connection, shard, byShard.get(shard));
      }
    }
  }

  private void writeShard(Connection connection, int shard, List<OutboxEvent> events)
      throws SQLException {
    requireCapture(connection, shard);
    String traceContext = traces.enabled() ? TraceColumn.capture(traces) : null;
    try (PreparedStatement insert = connection.prepareStatement(inserts[shard])) {
      for (OutboxEvent event : events) {
        insert.setObject(1, event.eventId());
        insert.setString(2, event.aggregateType());
        insert.setString(3, event.aggregateId());
        insert.setString(4, event.eventType());
        insert.setBytes(5, event.payload());
        insert.setString(6, event.contentType());
        insert.setString(7, headers(event));
        if (event.deadline().isPresent()) {
          insert.setTimestamp(8, Timestamp.from(event.deadline().get()));
        } else {
          insert.setNull(8, Types.TIMESTAMP_WITH_TIMEZONE);
        }
        if (traces.enabled()) {
          insert.setString(9, traceContext);
        }
        insert.addBatch();
      }
      insert.executeBatch();
    }
    written[shard].increment(events.size());
    if (removeAfterInsert) {
      // Logical decoding has the insert in the WAL; the row itself need not stay.
      try (PreparedStatement delete = connection.prepareStatement(deletes[shard])) {
        for (OutboxEvent event : events) {
          delete.setObject(1, event.eventId());
          delete.addBatch();
        }
        delete.executeBatch();
      }
    }
  }

  /**
   * Refuses the write while no slot and publication capture the shard's table: the event would
   * commit and never be published (a first deploy whose writers start before its relay).
   */
  private void requireCapture(Connection connection, int shard) throws SQLException {
    if (!checkCapture) {
      return;
    }
    long at = capturedAt[shard];
    if (at != 0 && System.nanoTime() - at < RECHECK_NANOS) {
      return;
    }
    OutboxCapture own = capture == null ? null : capture.shard(shard, shards.count());
    String missing =
        own == null
            ? Capture.missing(connection, shards.table(shard))
            : Capture.missing(connection, shards.table(shard), own.slot(), own.publication());
    if (missing != null) {
      throw new OutboxNotCapturedException(
          "not written: "
              + missing
              + ", so the event would never be published. Start the relay once (it makes its"
              + " slot and publication before it streams), or run"
              + " OutboxSchema.prepareCapture with a role that may create them.");
    }
    capturedAt[shard] = System.nanoTime();
  }

  private static String headers(OutboxEvent event) {
    if (event.headers().isEmpty()) {
      return null;
    }
    try {
      return JSON.writeValueAsString(event.headers());
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException(
          "headers of event " + event.eventId() + " are not JSON-able", e);
    }
  }
}
