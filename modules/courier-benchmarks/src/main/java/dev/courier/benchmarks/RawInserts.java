package dev.courier.benchmarks;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;

/**
 * The raw-insert baselines' loop: JDBC batches of {@code batch} rows, a transaction each, as an
 * application with nothing of Courier's would write them.
 */
final class RawInserts {

  /** Sets the parameters of row {@code i}. */
  @FunctionalInterface
  interface Row {
    void bind(PreparedStatement ps, int i) throws SQLException;
  }

  private RawInserts() {}

  static void batched(Connection c, PreparedStatement ps, int rows, int batch, Row row)
      throws SQLException {
    c.setAutoCommit(false);
    for (int i = 0; i < rows; i++) {
      row.bind(ps, i);
      ps.addBatch();
      if ((i + 1) % batch == 0) {
        ps.executeBatch();
        c.commit();
      }
    }
    ps.executeBatch();
    c.commit();
  }
}
