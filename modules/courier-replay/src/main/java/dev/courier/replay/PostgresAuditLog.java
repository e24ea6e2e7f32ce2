package dev.courier.replay;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import dev.courier.core.internal.SqlMigrations;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import javax.sql.DataSource;
import org.apache.kafka.common.TopicPartition;

/** The audit log in PostgreSQL; all of its SQL is here. */
final class PostgresAuditLog implements AuditLog {

  private static final String INSERT =
      "INSERT INTO courier_offset_audit (at, actor, reason, group_id, action, target, offsets,"
          + " undo_of, undo_file) VALUES (?, ?, ?, ?, ?, ?, ?::jsonb, ?, ?) RETURNING id";
  private static final String FINISH = "UPDATE courier_offset_audit SET outcome = ? WHERE id = ?";
  private static final String SELECT =
      "SELECT id, at, actor, reason, group_id, action, target, offsets, undo_of, undo_file, outcome"
          + " FROM courier_offset_audit";
  private static final ObjectMapper JSON = new ObjectMapper();

  private final DataSource dataSource;

  PostgresAuditLog(DataSource dataSource) {
    this.dataSource = dataSource;
    SqlMigrations.apply(dataSource, "replay", List.of("V1__offset_audit.sql"));
  }

  @Override
  public long begin(AuditEntry e) {
    try (Connection c = dataSource.getConnection();
        PreparedStatement ps = c.prepareStatement(INSERT)) {
      ps.setTimestamp(1, Timestamp.from(e.at()));
      ps.setString(2, e.actor());
      ps.setString(3, e.reason());
      ps.setString(4, e.group());
      ps.setString(5, e.action());
      ps.setString(6, e.target());
      ps.setString(7, offsetsJson(e.from(), e.to()));
      if (e.undoOf().isPresent()) {
        ps.setLong(8, e.undoOf().get());
      } else {
        ps.setNull(8, java.sql.Types.BIGINT);
      }
      ps.setString(9, e.undoFile());
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return rs.getLong(1);
      }
    } catch (SQLException ex) {
      throw new IllegalStateException("cannot write the audit entry for group " + e.group(), ex);
    }
  }

  @Override
  public void finish(long id, String outcome) {
    try (Connection c = dataSource.getConnection();
        PreparedStatement ps = c.prepareStatement(FINISH)) {
      ps.setString(1, outcome);
      ps.setLong(2, id);
      ps.executeUpdate();
    } catch (SQLException ex) {
      throw new IllegalStateException("cannot record the outcome of audit entry " + id, ex);
    }
  }

  @Override
  public Optional<AuditEntry> find(long id) {
    List<AuditEntry> found = query(SELECT + " WHERE id = ?", ps -> ps.setLong(1, id));
    return found.stream().findFirst();
  }

  @Override
  public List<AuditEntry> forGroup(String group) {
    return query(
        SELECT + " WHERE group_id = ? ORDER BY at DESC, id DESC", ps -> ps.setString(1, group));
  }

  private interface Binder {
    void bind(PreparedStatement ps) throws SQLException;
  }

  private List<AuditEntry> query(String sql, Binder binder) {
    try (Connection c = dataSource.getConnection();
        PreparedStatement ps = c.prepareStatement(sql)) {
      binder.bind(ps);
      List<AuditEntry> entries = new ArrayList<>();
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          entries.add(read(rs));
        }
      }
      return entries;
    } catch (SQLException ex) {
      throw new IllegalStateException("cannot read the offset audit log", ex);
    }
  }

  private static AuditEntry read(ResultSet rs) throws SQLException {
    Map<TopicPartition, Long> from = new HashMap<>();
    Map<TopicPartition, Long> to = new HashMap<>();
    try {
      for (JsonNode n : JSON.readTree(rs.getString("offsets"))) {
        TopicPartition tp = new TopicPartition(n.get("topic").asText(), n.get("partition").asInt());
        from.put(tp, n.get("from").asLong());
        to.put(tp, n.get("to").asLong());
      }
    } catch (JsonProcessingException ex) {
      throw new IllegalStateException("audit entry " + rs.getLong("id") + " is corrupt", ex);
    }
    long undoOf = rs.getLong("undo_of");
    Optional<Long> undo = rs.wasNull() ? Optional.empty() : Optional.of(undoOf);
    return new AuditEntry(
        rs.getLong("id"),
        rs.getTimestamp("at").toInstant(),
        rs.getString("actor"),
        rs.getString("reason"),
        rs.getString("group_id"),
        rs.getString("action"),
        rs.getString("target"),
        from,
        to,
        undo,
        rs.getString("undo_file"),
        rs.getString("outcome"));
  }

  private static String offsetsJson(Map<TopicPartition, Long> from, Map<TopicPartition, Long> to) {
    ArrayNode array = JSON.createArrayNode();
    to.forEach(
        (tp, target) ->
            array
                .addObject()
                .put("topic", tp.topic())
                .put("partition", tp.partition())
                .put("from", from.getOrDefault(tp, -1L))
                .put("to", target));
    return array.toString();
  }
}
