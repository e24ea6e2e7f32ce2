package dev.courier.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.courier.core.CrashPoint;
import dev.courier.core.CrashPoints;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

@CourierInfraTest
@BackendMatrix
class CrashHarnessIT {

  private static final Duration TIMEOUT = Duration.ofSeconds(60);

  private final TestDatabase database;

  CrashHarnessIT(TestDatabase database) {
    this.database = database;
  }

  @BeforeEach
  void freshTable() throws SQLException {
    try (Connection c = database.connection();
        Statement s = c.createStatement()) {
      s.execute("DROP TABLE IF EXISTS worker_steps");
      s.execute("CREATE TABLE worker_steps (step text PRIMARY KEY, pid bigint NOT NULL)");
    }
  }

  @Test
  void killedAtCrashPointLeavesFirstTransactionCommittedAndSecondAbsent() throws SQLException {
    WorkerProcess crashed =
        worker().crashAt(CrashPoints.AFTER_DB_COMMIT_BEFORE_OFFSET_COMMIT).start();
    int status = crashed.killAtCrashPoint(TIMEOUT);

    assertThat(status).isEqualTo(WorkerProcess.SIGKILL_EXIT_STATUS);
    assertThat(crashed.output())
        .contains(CrashPoint.REACHED_MARKER + "after-db-commit-before-offset-commit")
        .doesNotContain("worker finished");
    assertThat(steps()).containsExactly("first");

    // A fresh worker, not armed, picks up where the killed one stopped.
    WorkerProcess fresh = worker().start();
    assertThat(fresh.awaitExit(TIMEOUT)).isZero();
    assertThat(fresh.output()).contains("worker finished both transactions");
    assertThat(steps()).containsExactly("first", "second");
  }

  @Test
  void workerThatNeverReachesItsPointIsReportedWithItsOutput() {
    WorkerProcess worker = worker().crashAt(CrashPoint.named("a-point-nobody-reaches")).start();

    assertThatThrownBy(() -> worker.awaitCrashPoint(TIMEOUT))
        .isInstanceOf(CrashPointNotReachedException.class)
        .hasMessageContaining("exited with status 0")
        .hasMessageContaining("a-point-nobody-reaches")
        .hasMessageContaining("worker finished both transactions");
  }

  private JvmWorker worker() {
    return JvmWorker.of(TwoTransactionWorker.class)
        .args(database.jdbcUrl(), database.username(), database.password());
  }

  private List<String> steps() throws SQLException {
    List<String> steps = new ArrayList<>();
    try (Connection c = database.connection();
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT step FROM worker_steps ORDER BY step")) {
      while (rs.next()) {
        steps.add(rs.getString(1));
      }
    }
    return steps;
  }
}
