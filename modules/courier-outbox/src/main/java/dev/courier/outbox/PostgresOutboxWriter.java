package dev.courier.outbox;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.sql.Types;
import java.util.List;

/** {@link OutboxWriter} for PostgreSQL; all its SQL is here. */
final class PostgresOutboxWriter implements OutboxWriter {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String INSERT =
      "INSERT INTO courier_outbox (id, aggregatetype, aggregateid, type, payload, content_type,"
          + " headers, deadline) VALUES (?, ?, ?, ?, ?, ?, ?::jsonb, ?)";
  private static final String DELETE = "DELETE FROM courier_outbox WHERE id = ?";

  private final boolean removeAfterInsert;

  PostgresOutboxWriter(boolean removeAfterInsert) {
    this.removeAfterInsert = removeAfterInsert;
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
    try (PreparedStatement insert = connection.prepareStatement(INSERT)) {
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
        insert.addBatch();
      }
      insert.executeBatch();
    }
    if (removeAfterInsert) {
      // Logical decoding has the insert in the WAL; the row itself need not stay.
      try (PreparedStatement delete = connection.prepareStatement(DELETE)) {
        for (OutboxEvent event : events) {
          delete.setObject(1, event.eventId());
          delete.addBatch();
        }
        delete.executeBatch();
      }
    }
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
