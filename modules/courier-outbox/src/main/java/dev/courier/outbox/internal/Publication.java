package dev.courier.outbox.internal;

import dev.courier.outbox.OutboxRelayConfig;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The relay's publication publishes what the relay reads: inserts (the events) and updates (the
 * heartbeats). Debezium creates a new one that way (the engine skips deletes and truncates), but
 * leaves the operations of an existing one alone, so a publication made by an older relay still had
 * PostgreSQL decode and send the delete of every row remove-after-insert takes away.
 */
public final class Publication {

  /** The operations the relay reads. */
  public static final String PUBLISH = "insert, update";

  private static final Logger LOG = LoggerFactory.getLogger(Publication.class);

  private Publication() {}

  /** Narrows an existing publication that also publishes deletes or truncates; else nothing. */
  public static void narrow(OutboxRelayConfig config, PostgresAccess postgres) throws Outage {
    String name = config.getString(OutboxRelayConfig.PUBLICATION_NAME);
    try (Connection c = postgres.connect();
        PreparedStatement ps =
            c.prepareStatement(
                "SELECT pubdelete OR pubtruncate FROM pg_publication WHERE pubname = ?")) {
      ps.setString(1, name);
      try (ResultSet rs = ps.executeQuery()) {
        if (!rs.next() || !rs.getBoolean(1)) {
          return; // not made yet (Debezium makes it narrow) or narrow already
        }
      }
      try (Statement s = c.createStatement()) {
        s.execute("ALTER PUBLICATION " + quoted(name) + " SET (publish = '" + PUBLISH + "')");
      }
      LOG.info("publication {} now publishes {} only (it published deletes too)", name, PUBLISH);
    } catch (SQLException e) {
      throw postgres.classify(e);
    }
  }

  private static String quoted(String identifier) {
    return '"' + identifier.replace("\"", "\"\"") + '"';
  }
}
