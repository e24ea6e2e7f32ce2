package dev.courier.outbox.internal;

import dev.courier.outbox.OutboxRelayConfig;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * The relay's publication publishes inserts and updates only. Writers delete each outbox row right
 * after inserting it (remove-after-insert), and with the default {@code publish} PostgreSQL decodes
 * and sends every one of those deletes, which the relay then throws away: half of all decoded
 * changes. Updates stay for the heartbeat table's upsert, which keeps the slot moving when idle.
 */
public final class Publication {

  static final String PUBLISH = "insert, update";

  private Publication() {}

  /** Creates the publication, or narrows an existing one (an older relay's, or Debezium's). */
  public static void ensure(OutboxRelayConfig config, PostgresAccess postgres) throws Outage {
    String name = config.getString(OutboxRelayConfig.PUBLICATION);
    try (Connection c = postgres.connect()) {
      Boolean narrow = null;
      try (PreparedStatement ps =
          c.prepareStatement(
              "SELECT pubinsert AND pubupdate AND NOT pubdelete AND NOT pubtruncate"
                  + " FROM pg_publication WHERE pubname = ?")) {
        ps.setString(1, name);
        try (ResultSet rs = ps.executeQuery()) {
          if (rs.next()) {
            narrow = rs.getBoolean(1);
          }
        }
      }
      try (Statement s = c.createStatement()) {
        String quoted = "\"" + name.replace("\"", "\"\"") + "\"";
        if (narrow == null) {
          s.execute(
              "CREATE PUBLICATION "
                  + quoted
                  + " FOR TABLE "
                  + EngineProperties.OUTBOX_TABLE
                  + ", "
                  + EngineProperties.HEARTBEAT_TABLE
                  + " WITH (publish = '"
                  + PUBLISH
                  + "')");
        } else if (!narrow) {
          s.execute("ALTER PUBLICATION " + quoted + " SET (publish = '" + PUBLISH + "')");
        }
      }
    } catch (SQLException e) {
      if ("42710".equals(e.getSQLState())) {
        return; // another relay created it just now
      }
      throw postgres.classify(e);
    }
  }
}
