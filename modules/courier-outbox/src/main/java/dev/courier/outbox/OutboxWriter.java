package dev.courier.outbox;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;

/**
 * Writes outbox events inside the caller's JDBC transaction: the business change and its events
 * commit together or not at all. Never commits or rolls back the connection.
 */
public interface OutboxWriter {

  void write(Connection connection, OutboxEvent event) throws SQLException;

  /** Writes several events in one batch, in order. */
  void writeAll(Connection connection, List<OutboxEvent> events) throws SQLException;

  /**
   * The default writer: insert, then delete in the same transaction ({@code remove-after-insert},
   * as Debezium's Quarkus extension does), so the table stays empty while CDC still sees the
   * insert.
   */
  static OutboxWriter create() {
    return new PostgresOutboxWriter(true, OutboxShards.SINGLE);
  }

  /**
   * The default writer on a sharded outbox: each event goes to its aggregate id's shard, whose
   * relay publishes it (the relays run with the same {@code outbox.shard.count}).
   */
  static OutboxWriter create(OutboxShards shards) {
    return new PostgresOutboxWriter(true, shards);
  }

  /**
   * A writer that keeps rows ({@code removeAfterInsert=false}), e.g. for audit; purge them
   * yourself.
   */
  static OutboxWriter create(boolean removeAfterInsert) {
    return new PostgresOutboxWriter(removeAfterInsert, OutboxShards.SINGLE);
  }
}
