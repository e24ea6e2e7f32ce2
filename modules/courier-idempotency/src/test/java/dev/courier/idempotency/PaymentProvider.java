package dev.courier.idempotency;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import javax.sql.DataSource;

/**
 * Stands in for an external payment API that honours idempotency keys: every call is logged
 * (calls), the charge itself happens once per key (charges). Its tables are its own, written
 * outside the caller's transactions, as a remote system's would be.
 */
final class PaymentProvider {

  private final DataSource db;

  PaymentProvider(DataSource db) throws SQLException {
    this.db = db;
    try (Connection c = db.getConnection();
        Statement s = c.createStatement()) {
      s.execute("CREATE TABLE IF NOT EXISTS provider_calls (idempotency_key text, caller text)");
      s.execute(
          "CREATE TABLE IF NOT EXISTS provider_charges (idempotency_key text PRIMARY KEY,"
              + " receipt text NOT NULL)");
    }
  }

  /** Charges once per key; returns the receipt of the one charge. */
  String charge(String idempotencyKey, String caller) throws SQLException {
    try (Connection c = db.getConnection()) {
      try (PreparedStatement ps = c.prepareStatement("INSERT INTO provider_calls VALUES (?, ?)")) {
        ps.setString(1, idempotencyKey);
        ps.setString(2, caller);
        ps.executeUpdate();
      }
      try (PreparedStatement ps =
          c.prepareStatement(
              "INSERT INTO provider_charges VALUES (?, ?) ON CONFLICT (idempotency_key) DO NOTHING")) {
        ps.setString(1, idempotencyKey);
        ps.setString(2, "receipt-" + idempotencyKey);
        ps.executeUpdate();
      }
    }
    return receipt(idempotencyKey);
  }

  String receipt(String idempotencyKey) throws SQLException {
    try (Connection c = db.getConnection();
        PreparedStatement ps =
            c.prepareStatement("SELECT receipt FROM provider_charges WHERE idempotency_key = ?")) {
      ps.setString(1, idempotencyKey);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? rs.getString(1) : null;
      }
    }
  }

  long calls(String idempotencyKey) throws SQLException {
    return count("SELECT count(*) FROM provider_calls WHERE idempotency_key = ?", idempotencyKey);
  }

  long charges(String idempotencyKey) throws SQLException {
    return count("SELECT count(*) FROM provider_charges WHERE idempotency_key = ?", idempotencyKey);
  }

  private long count(String sql, String key) throws SQLException {
    try (Connection c = db.getConnection();
        PreparedStatement ps = c.prepareStatement(sql)) {
      ps.setString(1, key);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return rs.getLong(1);
      }
    }
  }
}
