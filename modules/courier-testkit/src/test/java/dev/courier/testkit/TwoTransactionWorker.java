package dev.courier.testkit;

import dev.courier.core.CrashPoints;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;

/**
 * Child-JVM worker for {@link CrashHarnessIT}: commits step "first", reaches the crash point, then
 * commits step "second". Each step is recorded once, so a rerun after a crash completes the work.
 */
public final class TwoTransactionWorker {

  private TwoTransactionWorker() {}

  public static void main(String[] args) throws SQLException {
    String jdbcUrl = args[0];
    try (Connection c = DriverManager.getConnection(jdbcUrl, args[1], args[2])) {
      c.setAutoCommit(false);
      record(c, "first");
      c.commit();
      CrashPoints.AFTER_DB_COMMIT_BEFORE_OFFSET_COMMIT.reach();
      record(c, "second");
      c.commit();
    }
    System.out.println("worker finished both transactions");
  }

  private static void record(Connection c, String step) throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement(
            "INSERT INTO worker_steps (step, pid) VALUES (?, ?) ON CONFLICT (step) DO NOTHING")) {
      ps.setString(1, step);
      ps.setLong(2, ProcessHandle.current().pid());
      ps.executeUpdate();
    }
  }
}
