package dev.courier.idempotency.internal;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** Every statement of the key store, PostgreSQL dialect, in one place. */
public final class KeySql {

  /** Where a key came from, stored for audit. */
  public record Coordinates(String topic, int partition, long offset) {}

  /** One key to record in a batch. */
  public record KeyRow(String key, byte[] fingerprint, Coordinates coordinates) {}

  private KeySql() {}

  /**
   * Records the key; if another transaction holds it uncommitted, waits for that one to end.
   *
   * @return empty when recorded now, else the fingerprint recorded earlier
   */
  public static Optional<byte[]> insert(Connection c, String consumer, KeyRow row, Instant now)
      throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement(
            "INSERT INTO courier_idempotency_keys (consumer, operation_key, fingerprint, topic,"
                + " partition_id, record_offset, processed_at) VALUES (?, ?, ?, ?, ?, ?, ?)"
                + " ON CONFLICT (consumer, operation_key) DO NOTHING")) {
      ps.setString(1, consumer);
      ps.setString(2, row.key());
      ps.setBytes(3, row.fingerprint());
      ps.setString(4, row.coordinates().topic());
      ps.setInt(5, row.coordinates().partition());
      ps.setLong(6, row.coordinates().offset());
      ps.setTimestamp(7, Timestamp.from(now));
      if (ps.executeUpdate() == 1) {
        return Optional.empty();
      }
    }
    return Optional.of(fingerprint(c, consumer, row.key()));
  }

  /**
   * Records every key of a batch in one statement, plus one lookup when some were there before.
   *
   * @return for each key not recorded now, the fingerprint recorded earlier
   */
  public static Map<String, byte[]> insertBatch(
      Connection c, String consumer, List<KeyRow> rows, Instant now) throws SQLException {
    int n = rows.size();
    String[] keys = new String[n];
    byte[][] fingerprints = new byte[n][];
    String[] topics = new String[n];
    Integer[] partitions = new Integer[n];
    Long[] offsets = new Long[n];
    for (int i = 0; i < n; i++) {
      KeyRow row = rows.get(i);
      keys[i] = row.key();
      fingerprints[i] = row.fingerprint();
      topics[i] = row.coordinates().topic();
      partitions[i] = row.coordinates().partition();
      offsets[i] = row.coordinates().offset();
    }
    // Only the insert runs for a batch of new keys: its conflicts are found by the unique index
    // whatever the table's size, and the row count says whether any key was there already. Only
    // then are the earlier fingerprints read. (A single statement that also joined the keys table,
    // and one that returned every inserted key, cost a plan that followed the table's statistics
    // and a row per key sent back.)
    String insert =
        "INSERT INTO courier_idempotency_keys (consumer, operation_key, fingerprint, topic,"
            + " partition_id, record_offset, processed_at)"
            + " SELECT ?, k, f, t, p, o, ?"
            + " FROM unnest(?::text[], ?::bytea[], ?::text[], ?::int[], ?::bigint[]) AS i(k, f, t, p, o)"
            + " ON CONFLICT (consumer, operation_key) DO NOTHING";
    int inserted;
    try (PreparedStatement ps = c.prepareStatement(insert)) {
      ps.setString(1, consumer);
      ps.setTimestamp(2, Timestamp.from(now));
      ps.setArray(3, c.createArrayOf("text", keys));
      ps.setArray(4, c.createArrayOf("bytea", fingerprints));
      ps.setArray(5, c.createArrayOf("text", topics));
      ps.setArray(6, c.createArrayOf("int4", partitions));
      ps.setArray(7, c.createArrayOf("int8", offsets));
      inserted = ps.executeUpdate();
    }
    if (inserted == n) {
      return Map.of();
    }
    Map<String, byte[]> earlier = earlier(c, consumer, keys);
    if (earlier.size() != n - inserted) {
      // A conflicting key deleted before this statement could read it (a purge): the batch's
      // keys are not all accounted for, so none of its effects may run.
      throw new SQLException(
          (n - inserted - earlier.size())
              + " key(s) of "
              + consumer
              + " vanished during the check");
    }
    return earlier;
  }

  /**
   * The fingerprints of the batch's keys that this transaction did not insert: they were there
   * before (rows of this transaction carry its id in {@code xmin}; PostgreSQL 13+). The statement
   * sees what committed before it started, including a key another transaction held uncommitted
   * when the insert waited for it.
   */
  private static Map<String, byte[]> earlier(Connection c, String consumer, String[] keys)
      throws SQLException {
    Map<String, byte[]> earlier = new HashMap<>();
    try (PreparedStatement ps =
        c.prepareStatement(
            "SELECT operation_key, fingerprint FROM courier_idempotency_keys"
                + " WHERE consumer = ? AND operation_key = ANY(?)"
                + " AND xmin <> pg_current_xact_id()::xid")) {
      ps.setString(1, consumer);
      ps.setArray(2, c.createArrayOf("text", keys));
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          earlier.put(rs.getString(1), rs.getBytes(2));
        }
      }
    }
    return earlier;
  }

  /** Removes a key recorded in this transaction whose effect then failed. */
  public static void delete(Connection c, String consumer, String key) throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement(
            "DELETE FROM courier_idempotency_keys WHERE consumer = ? AND operation_key = ?")) {
      ps.setString(1, consumer);
      ps.setString(2, key);
      ps.executeUpdate();
    }
  }

  public static void reject(
      Connection c,
      String consumer,
      String key,
      String reason,
      String detail,
      byte[] stored,
      byte[] received,
      Coordinates at,
      Instant now)
      throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement(
            "INSERT INTO courier_idempotency_rejections (consumer, operation_key, reason, detail,"
                + " stored_fingerprint, received_fingerprint, topic, partition_id, record_offset,"
                + " rejected_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")) {
      ps.setString(1, consumer);
      ps.setString(2, key);
      ps.setString(3, reason);
      ps.setString(4, detail);
      ps.setBytes(5, stored);
      ps.setBytes(6, received);
      ps.setString(7, at.topic());
      ps.setInt(8, at.partition());
      ps.setLong(9, at.offset());
      ps.setTimestamp(10, Timestamp.from(now));
      ps.executeUpdate();
    }
  }

  /** Deletes up to {@code limit} keys processed before {@code cutoff}; returns how many. */
  public static int purge(Connection c, String consumer, Instant cutoff, int limit)
      throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement(
            "DELETE FROM courier_idempotency_keys WHERE ctid IN (SELECT ctid FROM"
                + " courier_idempotency_keys WHERE consumer = ? AND processed_at < ? LIMIT ?)")) {
      ps.setString(1, consumer);
      ps.setTimestamp(2, Timestamp.from(cutoff));
      ps.setInt(3, limit);
      return ps.executeUpdate();
    }
  }

  public static long count(Connection c, String consumer) throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement("SELECT count(*) FROM courier_idempotency_keys WHERE consumer = ?")) {
      ps.setString(1, consumer);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return rs.getLong(1);
      }
    }
  }

  private static byte[] fingerprint(Connection c, String consumer, String key) throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement(
            "SELECT fingerprint FROM courier_idempotency_keys"
                + " WHERE consumer = ? AND operation_key = ?")) {
      ps.setString(1, consumer);
      ps.setString(2, key);
      try (ResultSet rs = ps.executeQuery()) {
        if (!rs.next()) {
          throw new SQLException("key " + key + " of " + consumer + " vanished during the check");
        }
        return rs.getBytes(1);
      }
    }
  }
}
