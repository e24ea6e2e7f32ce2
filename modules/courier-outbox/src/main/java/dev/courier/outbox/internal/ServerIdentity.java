package dev.courier.outbox.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Optional;

/**
 * Which PostgreSQL history a position belongs to: the cluster's system identifier (kept by its
 * physical standbys, new after initdb or pg_upgrade) and the timeline (new after every promotion
 * and point-in-time recovery). Stored with every position ({@link PositionWriter}), so a position
 * is never followed on a server whose WAL is another history than the one it was read from.
 */
public record ServerIdentity(String systemIdentifier, int timeline) {

  /** The fields the relay adds to Debezium's offset value; Debezium ignores them. */
  static final String SYSTEM_IDENTIFIER = "courier_system_identifier";

  static final String TIMELINE = "courier_timeline";

  /**
   * The server's identity. On a primary the timeline is the one WAL is written on now (the last
   * checkpoint's may still be the old one just after a promotion).
   */
  static ServerIdentity read(Connection c) throws SQLException {
    try (Statement s = c.createStatement();
        ResultSet rs =
            s.executeQuery(
                "SELECT (SELECT system_identifier::text FROM pg_control_system()),"
                    + " CASE WHEN pg_is_in_recovery()"
                    + " THEN (SELECT timeline_id FROM pg_control_checkpoint())"
                    + " ELSE ('x' || substr(pg_walfile_name(pg_current_wal_lsn()), 1, 8))"
                    + "::bit(32)::int END")) {
      rs.next();
      return new ServerIdentity(rs.getString(1), rs.getInt(2));
    }
  }

  /** The identity stored in an offset value, when the value carries one. */
  static Optional<ServerIdentity> of(JsonNode value) {
    if (!value.hasNonNull(SYSTEM_IDENTIFIER) || !value.hasNonNull(TIMELINE)) {
      return Optional.empty();
    }
    return Optional.of(
        new ServerIdentity(value.get(SYSTEM_IDENTIFIER).asText(), value.get(TIMELINE).asInt()));
  }

  void addTo(ObjectNode value) {
    value.put(SYSTEM_IDENTIFIER, systemIdentifier);
    value.put(TIMELINE, timeline);
  }

  @Override
  public String toString() {
    return "system " + systemIdentifier + ", timeline " + timeline;
  }
}
