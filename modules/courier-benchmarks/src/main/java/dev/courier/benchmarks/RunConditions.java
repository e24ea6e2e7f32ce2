package dev.courier.benchmarks;

import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Locale;
import javax.sql.DataSource;

/**
 * What else happened during one measured run, to tell noise from a change: this JVM's GC time and
 * PostgreSQL's checkpoints and autovacuum/autoanalyze runs in the database.
 */
record RunConditions(long gcMillis, long checkpoints, long autovacuums) {

  static RunConditions now(DataSource db) {
    long gc = 0;
    for (GarbageCollectorMXBean bean : ManagementFactory.getGarbageCollectorMXBeans()) {
      gc += Math.max(0, bean.getCollectionTime());
    }
    try (Connection c = db.getConnection();
        Statement s = c.createStatement()) {
      // The statistics are a snapshot per transaction unless cleared; autocommit gives a fresh one.
      s.execute("SELECT pg_stat_clear_snapshot()");
      long vacuums =
          single(
              s,
              "SELECT coalesce(sum(autovacuum_count + autoanalyze_count), 0) FROM"
                  + " pg_stat_user_tables");
      return new RunConditions(gc, checkpoints(s), vacuums);
    } catch (SQLException e) {
      throw new IllegalStateException("cannot read PostgreSQL's statistics: " + e, e);
    }
  }

  /** From {@code before} to this one. */
  RunConditions since(RunConditions before) {
    return new RunConditions(
        gcMillis - before.gcMillis,
        checkpoints - before.checkpoints,
        autovacuums - before.autovacuums);
  }

  String describe() {
    return String.format(
        Locale.ROOT,
        "GC %d ms, %d checkpoint(s), %d autovacuum/analyze",
        gcMillis,
        checkpoints,
        autovacuums);
  }

  private static long checkpoints(Statement s) throws SQLException {
    try {
      // PostgreSQL 17 moved the counters to pg_stat_checkpointer.
      return single(s, "SELECT num_timed + num_requested FROM pg_stat_checkpointer");
    } catch (SQLException before17) {
      return single(s, "SELECT checkpoints_timed + checkpoints_req FROM pg_stat_bgwriter");
    }
  }

  private static long single(Statement s, String sql) throws SQLException {
    try (ResultSet rs = s.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    }
  }
}
