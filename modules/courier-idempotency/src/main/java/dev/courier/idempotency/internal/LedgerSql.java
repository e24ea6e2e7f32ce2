package dev.courier.idempotency.internal;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

/** Every statement of the effect ledger, PostgreSQL dialect, in one place. */
public final class LedgerSql {

  /** A ledger row. */
  public record Row(
      String key,
      String status,
      String owner,
      UUID token,
      Instant leaseUntil,
      int attempts,
      String result,
      String reason,
      Instant createdAt,
      Instant updatedAt,
      Instant completedAt) {}

  private static final String COLUMNS =
      "effect_key, status, owner, lease_token, lease_until, attempts, result, outcome_reason,"
          + " created_at, updated_at, completed_at";

  private LedgerSql() {}

  /**
   * Takes the lease when the key is new, released, or its lease has expired; one statement, so two
   * workers can never both win.
   *
   * @return the row as now owned by the caller, or empty when someone else holds or settled it
   */
  public static Optional<Row> tryClaim(
      Connection c, String key, String owner, UUID token, Instant now, Instant until)
      throws SQLException {
    String sql =
        "INSERT INTO courier_effect_ledger (effect_key, status, owner, lease_token, lease_until,"
            + " attempts, created_at, updated_at) VALUES (?, 'IN_PROGRESS', ?, ?, ?, 1, ?, ?)"
            + " ON CONFLICT (effect_key) DO UPDATE SET status = 'IN_PROGRESS',"
            + " owner = EXCLUDED.owner, lease_token = EXCLUDED.lease_token,"
            + " lease_until = EXCLUDED.lease_until, attempts = courier_effect_ledger.attempts + 1,"
            + " updated_at = EXCLUDED.updated_at"
            + " WHERE courier_effect_ledger.status = 'RELEASED'"
            + " OR (courier_effect_ledger.status = 'IN_PROGRESS'"
            + " AND courier_effect_ledger.lease_until < EXCLUDED.updated_at)"
            + " RETURNING "
            + COLUMNS;
    try (PreparedStatement ps = c.prepareStatement(sql)) {
      ps.setString(1, key);
      ps.setString(2, owner);
      ps.setObject(3, token);
      ps.setTimestamp(4, Timestamp.from(until));
      ps.setTimestamp(5, Timestamp.from(now));
      ps.setTimestamp(6, Timestamp.from(now));
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? Optional.of(row(rs)) : Optional.empty();
      }
    }
  }

  /**
   * Moves an IN_PROGRESS effect to a new status, only while the caller's lease token is current.
   *
   * @return whether the caller still held the lease
   */
  public static boolean settle(
      Connection c,
      String key,
      UUID token,
      String status,
      String result,
      String reason,
      Instant now)
      throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement(
            "UPDATE courier_effect_ledger SET status = ?, result = ?, outcome_reason = ?,"
                + " lease_until = NULL, updated_at = ?,"
                + " completed_at = CASE WHEN ? = 'COMPLETED' THEN ? ELSE completed_at END"
                + " WHERE effect_key = ? AND lease_token = ? AND status = 'IN_PROGRESS'")) {
      ps.setString(1, status);
      ps.setString(2, result);
      ps.setString(3, reason);
      ps.setTimestamp(4, Timestamp.from(now));
      ps.setString(5, status);
      ps.setTimestamp(6, Timestamp.from(now));
      ps.setString(7, key);
      ps.setObject(8, token);
      return ps.executeUpdate() == 1;
    }
  }

  /** Resolves an UNKNOWN effect after reconciliation. */
  public static boolean resolveUnknown(
      Connection c, String key, String status, String result, String reason, Instant now)
      throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement(
            "UPDATE courier_effect_ledger SET status = ?, result = ?, outcome_reason = ?,"
                + " updated_at = ?,"
                + " completed_at = CASE WHEN ? = 'COMPLETED' THEN ? ELSE completed_at END"
                + " WHERE effect_key = ? AND status = 'UNKNOWN'")) {
      ps.setString(1, status);
      ps.setString(2, result);
      ps.setString(3, reason);
      ps.setTimestamp(4, Timestamp.from(now));
      ps.setString(5, status);
      ps.setTimestamp(6, Timestamp.from(now));
      ps.setString(7, key);
      return ps.executeUpdate() == 1;
    }
  }

  public static Optional<Row> find(Connection c, String key) throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement(
            "SELECT " + COLUMNS + " FROM courier_effect_ledger WHERE effect_key = ?")) {
      ps.setString(1, key);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? Optional.of(row(rs)) : Optional.empty();
      }
    }
  }

  public static List<Row> unknown(Connection c, int limit) throws SQLException {
    List<Row> rows = new ArrayList<>();
    try (PreparedStatement ps =
        c.prepareStatement(
            "SELECT "
                + COLUMNS
                + " FROM courier_effect_ledger WHERE status = 'UNKNOWN'"
                + " ORDER BY updated_at LIMIT ?")) {
      ps.setInt(1, limit);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          rows.add(row(rs));
        }
      }
    }
    return rows;
  }

  private static Row row(ResultSet rs) throws SQLException {
    return new Row(
        rs.getString("effect_key"),
        rs.getString("status"),
        rs.getString("owner"),
        rs.getObject("lease_token", UUID.class),
        instant(rs.getTimestamp("lease_until")),
        rs.getInt("attempts"),
        rs.getString("result"),
        rs.getString("outcome_reason"),
        instant(rs.getTimestamp("created_at")),
        instant(rs.getTimestamp("updated_at")),
        instant(rs.getTimestamp("completed_at")));
  }

  private static Instant instant(Timestamp timestamp) {
    return timestamp == null ? null : timestamp.toInstant();
  }
}
