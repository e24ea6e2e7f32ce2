package dev.courier.outbox.internal;

import dev.courier.outbox.OutboxRelayConfig;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Optional;

/**
 * Whether the replication slot is the one the relay's stored position came from. A relay that
 * stored a position streamed from a slot that, from then on, holds every change after it. If the
 * slot is gone (dropped, or lost in a failover to a standby that did not have it), is ahead of the
 * stored position (recreated, or read by someone else), or is on another history than the one the
 * position was read from (another cluster, or a new timeline whose slot was not synced from the old
 * primary), the changes in between are gone, and following the slot silently would lose them.
 *
 * <p>PostgreSQL gives a slot no identity of its own (no oid, no creation position), so the slot is
 * known by its name, its database, the server's system identifier and timeline, and whether it is a
 * failover slot (PostgreSQL 17), the only kind that crosses a promotion.
 */
public final class SlotIdentity {

  /** What the comparison found, and the server it found it on. */
  public record Verdict(boolean gap, String description, ServerIdentity server) {}

  /** The slot as {@code pg_replication_slots} shows it. */
  public record Slot(long confirmedFlush, boolean failover) {}

  private SlotIdentity() {}

  /**
   * @param stored the position the relay stored, read from Kafka (see {@link StoredPosition})
   */
  public static Verdict check(
      OutboxRelayConfig config, PostgresAccess postgres, Optional<StoredPosition.Position> stored)
      throws Outage {
    String slot = config.getString(OutboxRelayConfig.SLOT_NAME);
    try (Connection c = postgres.connect()) {
      return compare(slot, stored, slot(c, slot), ServerIdentity.read(c));
    } catch (SQLException e) {
      throw postgres.classify(e);
    }
  }

  /** The decision itself, without I/O. */
  static Verdict compare(
      String name,
      Optional<StoredPosition.Position> stored,
      Optional<Slot> slot,
      ServerIdentity server) {
    if (stored.isEmpty()) {
      return new Verdict(
          false,
          slot.map(s -> "no stored position; starting from slot " + name + " at " + lsn(s))
              .orElse("first start: slot " + name + " will be created"),
          server);
    }
    StoredPosition.Position position = stored.get();
    if (slot.isEmpty()) {
      return new Verdict(
          true,
          "replication slot "
              + name
              + " does not exist, but the relay stored a position at "
              + lsn(position.lsn())
              + ": the slot was dropped, or PostgreSQL failed over to a server without it, and"
              + " changes committed since are no longer in any slot",
          server);
    }
    Optional<ServerIdentity> was = position.server();
    if (was.isPresent() && !was.get().systemIdentifier().equals(server.systemIdentifier())) {
      return new Verdict(
          true,
          "PostgreSQL is another cluster than the one the relay stored its position on ("
              + server
              + "; the position at "
              + lsn(position.lsn())
              + " was read on "
              + was.get()
              + "): replication slot "
              + name
              + " there is not the one the position came from",
          server);
    }
    if (was.isPresent() && was.get().timeline() != server.timeline() && !slot.get().failover()) {
      return new Verdict(
          true,
          "PostgreSQL changed timeline from "
              + was.get().timeline()
              + " to "
              + server.timeline()
              + " (a promotion or a point-in-time recovery) since the relay stored its position"
              + " at "
              + lsn(position.lsn())
              + ", and replication slot "
              + name
              + " is no failover slot synced from the old primary: it was made on this server"
              + " since, at "
              + lsn(slot.get())
              + ", and the changes this server committed before it reached the stored position"
              + " are in no slot",
          server);
    }
    if (slot.get().confirmedFlush() > position.lsn()) {
      return new Verdict(
          true,
          "replication slot "
              + name
              + " is at "
              + lsn(slot.get())
              + ", ahead of the relay's stored position "
              + lsn(position.lsn())
              + ": it was recreated or read by someone else, and the changes in between are"
              + " gone",
          server);
    }
    return new Verdict(
        false,
        "slot "
            + name
            + " at "
            + lsn(slot.get())
            + ", stored position "
            + lsn(position.lsn())
            + " ("
            + server
            + ")",
        server);
  }

  private static Optional<Slot> slot(Connection c, String slot) throws SQLException {
    // failover is a column from PostgreSQL 17 on; read through jsonb it is simply absent before.
    try (PreparedStatement ps =
        c.prepareStatement(
            "SELECT (confirmed_flush_lsn - '0/0')::bigint,"
                + " coalesce((to_jsonb(s) ->> 'failover')::boolean, false)"
                + " FROM pg_replication_slots s"
                + " WHERE slot_name = ? AND database = current_database()")) {
      ps.setString(1, slot);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next()
            ? Optional.of(new Slot(rs.getLong(1), rs.getBoolean(2)))
            : Optional.empty();
      }
    }
  }

  private static String lsn(Slot slot) {
    return lsn(slot.confirmedFlush());
  }

  /** PostgreSQL's notation, e.g. {@code 0/16B3748}. */
  static String lsn(long value) {
    return Long.toHexString(value >>> 32).toUpperCase()
        + "/"
        + Long.toHexString(value & 0xFFFFFFFFL).toUpperCase();
  }
}
