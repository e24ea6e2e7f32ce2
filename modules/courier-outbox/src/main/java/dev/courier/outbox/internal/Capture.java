package dev.courier.outbox.internal;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The slot and publication an outbox table is read through, made before anything is written to it,
 * and the check a writer makes that they exist. All of their SQL is here.
 */
public final class Capture {

  private static final Logger LOG = LoggerFactory.getLogger(Capture.class);

  /** duplicate_object: another relay or replica made it at the same moment. */
  private static final String DUPLICATE_OBJECT = "42710";

  private Capture() {}

  /**
   * Makes the publication (the table and the heartbeat table, inserts and updates) and the logical
   * slot ({@code pgoutput}) unless they exist.
   *
   * @return what was made, for the log ({@code ""} when both existed)
   */
  public static String ensure(
      Connection c, String table, String slot, String publication, boolean failover)
      throws SQLException {
    StringBuilder made = new StringBuilder();
    if (!exists(c, "SELECT 1 FROM pg_publication WHERE pubname = ?", publication)) {
      try (Statement s = c.createStatement()) {
        s.execute(
            "CREATE PUBLICATION "
                + quoted(publication)
                + " FOR TABLE public."
                + quoted(table)
                + ", "
                + EngineProperties.HEARTBEAT_TABLE
                + " WITH (publish = '"
                + Publication.PUBLISH
                + "')");
        made.append("publication ").append(publication);
      } catch (SQLException e) {
        if (!DUPLICATE_OBJECT.equals(e.getSQLState())) {
          throw e;
        }
      }
    }
    if (!exists(c, "SELECT 1 FROM pg_replication_slots WHERE slot_name = ?", slot)) {
      boolean failoverSlots = c.getMetaData().getDatabaseMajorVersion() >= 17;
      try (PreparedStatement ps =
          c.prepareStatement(
              failoverSlots
                  ? "SELECT pg_create_logical_replication_slot(?, 'pgoutput', false, false, ?)"
                  : "SELECT pg_create_logical_replication_slot(?, 'pgoutput')")) {
        ps.setString(1, slot);
        if (failoverSlots) {
          ps.setBoolean(2, failover);
        }
        ps.execute();
        made.append(made.isEmpty() ? "" : " and ").append("slot ").append(slot);
      } catch (SQLException e) {
        if (!DUPLICATE_OBJECT.equals(e.getSQLState())) {
          throw e;
        }
      }
    }
    if (!made.isEmpty()) {
      LOG.info("{} made for {}: events written from now on are published", made, table);
    }
    return made.toString();
  }

  /**
   * Why an event written to {@code table} now would not be published through slot {@code slot} and
   * publication {@code publication}, or null when the publication holds the table and the slot
   * exists.
   */
  public static String missing(Connection c, String table, String slot, String publication)
      throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement(
            "SELECT EXISTS (SELECT 1 FROM pg_publication p WHERE p.pubname = ? AND (p.puballtables"
                + " OR EXISTS (SELECT 1 FROM pg_publication_rel r WHERE r.prpubid = p.oid AND"
                + " r.prrelid = to_regclass(?)))), EXISTS (SELECT 1 FROM pg_replication_slots"
                + " WHERE slot_name = ? AND slot_type = 'logical' AND plugin = 'pgoutput' AND"
                + " database = current_database())")) {
      ps.setString(1, publication);
      ps.setString(2, table);
      ps.setString(3, slot);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return describe(
            rs.getBoolean(1),
            "publication " + publication + " does not hold " + table,
            rs.getBoolean(2),
            "replication slot " + slot + " does not exist");
      }
    }
  }

  /**
   * Why an event written to {@code table} now would not be published, or null when a publication
   * holds the table and a logical {@code pgoutput} slot exists in the database (the writer does not
   * know which slot its relay reads, unless told).
   */
  public static String missing(Connection c, String table) throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement(
            "SELECT EXISTS (SELECT 1 FROM pg_publication p WHERE p.puballtables OR EXISTS (SELECT 1"
                + " FROM pg_publication_rel r WHERE r.prpubid = p.oid AND r.prrelid ="
                + " to_regclass(?))), EXISTS (SELECT 1 FROM pg_replication_slots WHERE slot_type"
                + " = 'logical' AND plugin = 'pgoutput' AND database = current_database())")) {
      ps.setString(1, table);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return describe(
            rs.getBoolean(1),
            "no publication holds " + table,
            rs.getBoolean(2),
            "no logical replication slot (pgoutput) exists in this database");
      }
    }
  }

  private static String describe(
      boolean published, String notPublished, boolean slot, String noSlot) {
    if (published && slot) {
      return null;
    }
    return (published ? "" : notPublished)
        + (published || slot ? "" : " and ")
        + (slot ? "" : noSlot);
  }

  private static boolean exists(Connection c, String sql, String name) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(sql)) {
      ps.setString(1, name);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next();
      }
    }
  }

  private static String quoted(String identifier) {
    return '"' + identifier.replace("\"", "\"\"") + '"';
  }
}
