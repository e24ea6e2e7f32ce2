package dev.courier.outbox.internal;

import dev.courier.outbox.OutboxRelayConfig;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The slot between terms of the {@link Leadership}: a new leader ends whatever still reads it, and
 * a standby names who leads from the terms table ({@code courier_outbox_relay_terms}).
 */
public final class SlotHandover {

  private static final Logger LOG = LoggerFactory.getLogger(SlotHandover.class);

  private static final String LAST_TERM =
      "SELECT incarnation, holder, started_at FROM courier_outbox_relay_terms WHERE slot_name = ?"
          + " ORDER BY incarnation DESC LIMIT 1";
  private static final String END_OTHER_READER =
      "SELECT pg_terminate_backend(active_pid), active_pid FROM pg_replication_slots"
          + " WHERE slot_name = ? AND active AND active_pid <> pg_backend_pid()";
  private static final String SLOT_ACTIVE =
      "SELECT active FROM pg_replication_slots WHERE slot_name = ?";

  private final PostgresAccess postgres;
  private final String slot;

  public SlotHandover(OutboxRelayConfig config, PostgresAccess postgres) {
    this.postgres = postgres;
    this.slot = config.getString(OutboxRelayConfig.SLOT_NAME);
  }

  /**
   * Ends any other reader of the slot (a frozen or dying former leader's walsender, or this relay's
   * own from before an engine restart) and waits until the slot is free for this relay's engine.
   */
  public void take(Duration timeout) throws Outage {
    try (Connection c = postgres.connect()) {
      try (PreparedStatement ps = c.prepareStatement(END_OTHER_READER)) {
        ps.setString(1, slot);
        try (ResultSet rs = ps.executeQuery()) {
          if (rs.next()) {
            LOG.warn(
                "slot {} was still read by PostgreSQL backend {} (a former leader); ended it",
                slot,
                rs.getInt(2));
          }
        }
      }
      long deadline = System.nanoTime() + timeout.toNanos();
      try (PreparedStatement ps = c.prepareStatement(SLOT_ACTIVE)) {
        ps.setString(1, slot);
        while (System.nanoTime() < deadline) {
          try (ResultSet rs = ps.executeQuery()) {
            if (!rs.next() || !rs.getBoolean(1)) {
              return;
            }
          }
          TimeUnit.MILLISECONDS.sleep(50);
        }
      }
      throw new Outage(
          "replication slot " + slot + " is still read by a backend being ended", null);
    } catch (SQLException e) {
      throw postgres.classify(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new Outage("interrupted while taking over slot " + slot, e);
    }
  }

  /** Who leads now, as the terms table says, for a standby's /health. */
  public String leader() {
    try (Connection c = postgres.connect();
        PreparedStatement ps = c.prepareStatement(LAST_TERM)) {
      ps.setString(1, slot);
      try (ResultSet rs = ps.executeQuery()) {
        if (rs.next()) {
          return rs.getString(2)
              + " (incarnation "
              + rs.getLong(1)
              + ", since "
              + rs.getTimestamp(3).toInstant()
              + ")";
        }
      }
    } catch (SQLException | Outage | RuntimeException e) {
      LOG.debug("could not read the current term: {}", e.toString());
    }
    return "another relay";
  }
}
