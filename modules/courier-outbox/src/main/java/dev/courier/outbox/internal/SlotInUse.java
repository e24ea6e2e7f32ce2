package dev.courier.outbox.internal;

import dev.courier.outbox.OutboxRelayConfig;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * Another reader streams from the relay's slot (a second relay with the same settings, or a
 * leftover connection): this relay must not start its engine, which would fail on "replication slot
 * is active" and retry blindly. It waits as a standby, not ready, and takes over as soon as the
 * slot is free (the reader's process died or stopped).
 */
public final class SlotInUse extends Exception {
  private static final long serialVersionUID = 1L;

  private SlotInUse(String message) {
    super(message);
  }

  /** Throws when the slot is active for another backend; an absent slot is free. */
  public static void check(OutboxRelayConfig config, PostgresAccess postgres)
      throws Outage, SlotInUse {
    String slot = config.getString(OutboxRelayConfig.SLOT);
    try (Connection c = postgres.connect();
        PreparedStatement ps =
            c.prepareStatement(
                "SELECT active_pid, client_addr FROM pg_replication_slots s LEFT JOIN"
                    + " pg_stat_replication r ON r.pid = s.active_pid WHERE slot_name = ? AND"
                    + " active")) {
      ps.setString(1, slot);
      try (ResultSet rs = ps.executeQuery()) {
        if (rs.next()) {
          String from = rs.getString(2);
          throw new SlotInUse(
              "standby: replication slot "
                  + slot
                  + " is streamed by PostgreSQL backend "
                  + rs.getInt(1)
                  + (from == null ? "" : " for a client at " + from)
                  + " (another relay with these settings); this relay takes over when it stops");
        }
      }
    } catch (SQLException e) {
      throw postgres.classify(e);
    }
  }
}
