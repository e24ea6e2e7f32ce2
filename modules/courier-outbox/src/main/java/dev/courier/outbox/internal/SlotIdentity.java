package dev.courier.outbox.internal;

import dev.courier.outbox.OutboxRelayConfig;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * Whether the replication slot is the one the relay's stored position came from. A relay that
 * stored a position streamed from a slot that, from then on, holds every change after it. If the
 * slot is gone (dropped, or lost in a failover to a standby that did not have it) or is ahead of
 * the stored position (recreated, or read by someone else), the changes in between are gone, and
 * following the slot silently would lose them.
 */
public final class SlotIdentity {

  /** What the comparison found. */
  public record Verdict(boolean gap, String description) {}

  private SlotIdentity() {}

  /**
   * @param stored the position the relay stored, read from Kafka (see {@link StoredPosition})
   */
  public static Verdict check(
      OutboxRelayConfig config, PostgresAccess postgres, OptionalLong stored) throws Outage {
    String slot = config.getString(OutboxRelayConfig.SLOT_NAME);
    Optional<Long> slotAt = slotPosition(postgres, slot);
    if (stored.isEmpty()) {
      return new Verdict(
          false,
          slotAt
              .map(lsn -> "no stored position; starting from slot " + slot + " at " + lsn(lsn))
              .orElse("first start: slot " + slot + " will be created"));
    }
    if (slotAt.isEmpty()) {
      return new Verdict(
          true,
          "replication slot "
              + slot
              + " does not exist, but the relay stored a position at "
              + lsn(stored.getAsLong())
              + ": the slot was dropped, or PostgreSQL failed over to a server without it, and"
              + " changes committed since are no longer in any slot");
    }
    if (slotAt.get() > stored.getAsLong()) {
      return new Verdict(
          true,
          "replication slot "
              + slot
              + " is at "
              + lsn(slotAt.get())
              + ", ahead of the relay's stored position "
              + lsn(stored.getAsLong())
              + ": it was recreated or read by someone else, and the changes in between are"
              + " gone");
    }
    return new Verdict(
        false,
        "slot "
            + slot
            + " at "
            + lsn(slotAt.get())
            + ", stored position "
            + lsn(stored.getAsLong()));
  }

  private static Optional<Long> slotPosition(PostgresAccess postgres, String slot) throws Outage {
    try (Connection c = postgres.connect();
        PreparedStatement ps =
            c.prepareStatement(
                "SELECT (confirmed_flush_lsn - '0/0')::bigint FROM pg_replication_slots"
                    + " WHERE slot_name = ? AND database = current_database()")) {
      ps.setString(1, slot);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? Optional.of(rs.getLong(1)) : Optional.empty();
      }
    } catch (SQLException e) {
      throw postgres.classify(e);
    }
  }

  /** PostgreSQL's notation, e.g. {@code 0/16B3748}. */
  static String lsn(long value) {
    return Long.toHexString(value >>> 32).toUpperCase()
        + "/"
        + Long.toHexString(value & 0xFFFFFFFFL).toUpperCase();
  }
}
