package dev.courier.retry;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import dev.courier.core.internal.SqlMigrations;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import javax.sql.DataSource;

/** The DLT audit log and the parked list in PostgreSQL; all of their SQL is here. */
final class DltStore {

  /** One audited action, as stored. */
  record Entry(
      long id,
      Instant at,
      String actor,
      String reason,
      String action,
      String dltTopic,
      String targetTopic,
      String records,
      String outcome) {}

  private static final ObjectMapper JSON = new ObjectMapper();
  private final DataSource dataSource;

  DltStore(DataSource dataSource) {
    this.dataSource = dataSource;
    SqlMigrations.apply(dataSource, "retry", List.of("V1__dlt_audit.sql"));
  }

  long begin(
      Instant at,
      String actor,
      String reason,
      String action,
      String dltTopic,
      String target,
      List<DltRecord> records) {
    ArrayNode list = JSON.createArrayNode();
    records.forEach(
        r ->
            list.addObject()
                .put("partition", r.partition())
                .put("offset", r.offset())
                .put("operationKey", r.operationKey().orElse(null))
                .put("reason", r.reason()));
    String sql =
        "INSERT INTO courier_dlt_audit (at, actor, reason, action, dlt_topic, target_topic, records)"
            + " VALUES (?, ?, ?, ?, ?, ?, ?::jsonb) RETURNING id";
    try (Connection c = dataSource.getConnection();
        PreparedStatement ps = c.prepareStatement(sql)) {
      ps.setTimestamp(1, Timestamp.from(at));
      ps.setString(2, actor);
      ps.setString(3, reason);
      ps.setString(4, action);
      ps.setString(5, dltTopic);
      ps.setString(6, target);
      ps.setString(7, list.toString());
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return rs.getLong(1);
      }
    } catch (SQLException e) {
      throw new IllegalStateException("cannot write the DLT audit entry: nothing was replayed", e);
    }
  }

  void finish(long id, String outcome) {
    try (Connection c = dataSource.getConnection();
        PreparedStatement ps =
            c.prepareStatement("UPDATE courier_dlt_audit SET outcome = ? WHERE id = ?")) {
      ps.setString(1, outcome);
      ps.setLong(2, id);
      ps.executeUpdate();
    } catch (SQLException e) {
      throw new IllegalStateException("cannot record the outcome of DLT audit entry " + id, e);
    }
  }

  List<Entry> entries(String dltTopic) {
    String sql =
        "SELECT id, at, actor, reason, action, dlt_topic, target_topic, records::text, outcome"
            + " FROM courier_dlt_audit WHERE dlt_topic = ? ORDER BY id";
    try (Connection c = dataSource.getConnection();
        PreparedStatement ps = c.prepareStatement(sql)) {
      ps.setString(1, dltTopic);
      List<Entry> entries = new ArrayList<>();
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          entries.add(
              new Entry(
                  rs.getLong(1),
                  rs.getTimestamp(2).toInstant(),
                  rs.getString(3),
                  rs.getString(4),
                  rs.getString(5),
                  rs.getString(6),
                  rs.getString(7),
                  rs.getString(8),
                  rs.getString(9)));
        }
      }
      return entries;
    } catch (SQLException e) {
      throw new IllegalStateException("cannot read the DLT audit log", e);
    }
  }

  void park(DltRecord r, Instant at, String actor, String reason) {
    String sql =
        "INSERT INTO courier_dlt_parked (dlt_topic, partition, \"offset\", at, actor, reason)"
            + " VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING";
    try (Connection c = dataSource.getConnection();
        PreparedStatement ps = c.prepareStatement(sql)) {
      ps.setString(1, r.dltTopic());
      ps.setInt(2, r.partition());
      ps.setLong(3, r.offset());
      ps.setTimestamp(4, Timestamp.from(at));
      ps.setString(5, actor);
      ps.setString(6, reason);
      ps.executeUpdate();
    } catch (SQLException e) {
      throw new IllegalStateException("cannot park " + r.coordinates(), e);
    }
  }

  boolean isParked(DltRecord r) {
    try (Connection c = dataSource.getConnection();
        PreparedStatement ps =
            c.prepareStatement(
                "SELECT 1 FROM courier_dlt_parked WHERE dlt_topic = ? AND partition = ?"
                    + " AND \"offset\" = ?")) {
      ps.setString(1, r.dltTopic());
      ps.setInt(2, r.partition());
      ps.setLong(3, r.offset());
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next();
      }
    } catch (SQLException e) {
      throw new IllegalStateException("cannot check whether " + r.coordinates() + " is parked", e);
    }
  }

  /** Parked records of a DLT as {@code partition@offset}. */
  Set<String> parked(String dltTopic) {
    try (Connection c = dataSource.getConnection();
        PreparedStatement ps =
            c.prepareStatement(
                "SELECT partition, \"offset\" FROM courier_dlt_parked WHERE dlt_topic = ?")) {
      ps.setString(1, dltTopic);
      Set<String> parked = new HashSet<>();
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          parked.add(rs.getInt(1) + "@" + rs.getLong(2));
        }
      }
      return parked;
    } catch (SQLException e) {
      throw new IllegalStateException("cannot read parked records", e);
    }
  }
}
