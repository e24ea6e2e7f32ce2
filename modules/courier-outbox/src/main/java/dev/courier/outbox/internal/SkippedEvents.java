package dev.courier.outbox.internal;

import dev.courier.outbox.OutboxSkips;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;

/**
 * The events operators told the relay to dead-letter ({@code courier_outbox_skips}), read when its
 * engine starts: a relay stopped by {@code outbox.invalid.row.policy=fail} is started again after
 * the skip, and then passes the row.
 */
public final class SkippedEvents {

  private SkippedEvents() {}

  /**
   * Every skip by event id, oldest first; none where the table is not there yet (a relay not
   * migrated).
   */
  public static Map<String, OutboxSkips.Skip> load(PostgresAccess postgres) throws Outage {
    Map<String, OutboxSkips.Skip> skips = new LinkedHashMap<>();
    try (Connection c = postgres.connect();
        Statement s = c.createStatement()) {
      try (ResultSet exists = s.executeQuery("SELECT to_regclass('courier_outbox_skips')")) {
        if (!exists.next() || exists.getString(1) == null) {
          return skips;
        }
      }
      try (ResultSet rs =
          s.executeQuery(
              "SELECT event_id, actor, reason, skipped_at FROM courier_outbox_skips"
                  + " ORDER BY skipped_at, event_id")) {
        while (rs.next()) {
          OutboxSkips.Skip skip =
              new OutboxSkips.Skip(
                  rs.getObject(1, UUID.class),
                  rs.getString(2),
                  rs.getString(3),
                  rs.getTimestamp(4).toInstant());
          skips.put(skip.eventId().toString(), skip);
        }
      }
      return skips;
    } catch (SQLException e) {
      throw postgres.classify(e);
    }
  }

  /** Records a skip; a second skip of the same event keeps the first one's who and why. */
  public static OutboxSkips.Skip add(
      PostgresAccess postgres, UUID eventId, String actor, String reason) throws Outage {
    try (Connection c = postgres.connect();
        PreparedStatement insert =
            c.prepareStatement(
                "INSERT INTO courier_outbox_skips (event_id, actor, reason) VALUES (?, ?, ?)"
                    + " ON CONFLICT (event_id) DO NOTHING");
        PreparedStatement read =
            c.prepareStatement(
                "SELECT actor, reason, skipped_at FROM courier_outbox_skips WHERE event_id = ?")) {
      insert.setObject(1, eventId);
      insert.setString(2, actor);
      insert.setString(3, reason);
      insert.executeUpdate();
      read.setObject(1, eventId);
      try (ResultSet rs = read.executeQuery()) {
        rs.next();
        Instant at = rs.getTimestamp(3).toInstant();
        return new OutboxSkips.Skip(eventId, rs.getString(1), rs.getString(2), at);
      }
    } catch (SQLException e) {
      throw postgres.classify(e);
    }
  }
}
