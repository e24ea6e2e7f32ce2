package dev.courier.benchmarks;

import java.io.IOException;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Locale;
import javax.sql.DataSource;

/**
 * What else happened during one measured run, to tell noise from a change: this JVM's GC time,
 * PostgreSQL's checkpoints and autovacuum/autoanalyze runs in the database, and the share of the
 * machine's CPU time the hypervisor gave to other guests (steal, from {@code /proc/stat}; zero
 * ticks where there is none to read).
 */
record RunConditions(
    long gcMillis, long checkpoints, long autovacuums, long stealTicks, long cpuTicks) {

  static final RunConditions NONE = new RunConditions(0, 0, 0, 0, 0);

  private static final Path PROC_STAT = Path.of("/proc/stat");

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
      long[] cpu = machineTicks();
      return new RunConditions(gc, checkpoints(s), vacuums, cpu[0], cpu[1]);
    } catch (SQLException e) {
      throw new IllegalStateException("cannot read PostgreSQL's statistics: " + e, e);
    }
  }

  /** From {@code before} to this one. */
  RunConditions since(RunConditions before) {
    return new RunConditions(
        gcMillis - before.gcMillis,
        checkpoints - before.checkpoints,
        autovacuums - before.autovacuums,
        stealTicks - before.stealTicks,
        cpuTicks - before.cpuTicks);
  }

  /** Both together: the conditions of a run measured in slices. */
  RunConditions plus(RunConditions other) {
    return new RunConditions(
        gcMillis + other.gcMillis,
        checkpoints + other.checkpoints,
        autovacuums + other.autovacuums,
        stealTicks + other.stealTicks,
        cpuTicks + other.cpuTicks);
  }

  String describe() {
    return String.format(
        Locale.ROOT,
        "GC %d ms, %d checkpoint(s), %d autovacuum/analyze, steal %s",
        gcMillis,
        checkpoints,
        autovacuums,
        cpuTicks > 0 ? String.format(Locale.ROOT, "%.0f%%", 100.0 * stealTicks / cpuTicks) : "n/a");
  }

  /**
   * The machine's steal and total CPU ticks so far: the first line of {@code /proc/stat} is "cpu
   * user nice system idle iowait irq softirq steal ...", and guest time is already in user.
   */
  private static long[] machineTicks() {
    try {
      String[] f = Files.readAllLines(PROC_STAT).get(0).trim().split("\\s+");
      long total = 0;
      for (int i = 1; i <= 8; i++) {
        total += Long.parseLong(f[i]);
      }
      return new long[] {Long.parseLong(f[8]), total};
    } catch (IOException | RuntimeException notLinux) {
      return new long[] {0, 0};
    }
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
