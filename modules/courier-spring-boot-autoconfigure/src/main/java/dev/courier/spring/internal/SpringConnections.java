package dev.courier.spring.internal;

import java.sql.Connection;
import javax.sql.DataSource;
import org.springframework.jdbc.datasource.DataSourceUtils;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/** The connection of the caller's Spring transaction, or a clear refusal when there is none. */
public final class SpringConnections {

  private SpringConnections() {}

  /**
   * The connection the current Spring transaction holds on that DataSource.
   *
   * @param what what needs it, for the error ("the outbox")
   * @throws IllegalStateException there is no transaction, or it does not manage this DataSource
   */
  public static Connection transactional(DataSource dataSource, String what) {
    if (!TransactionSynchronizationManager.isActualTransactionActive()) {
      throw new IllegalStateException(
          what
              + " is written in the caller's transaction and none is active: call it from a"
              + " @Transactional method (or a TransactionTemplate), so the business change and"
              + " the event commit together");
    }
    Connection connection = DataSourceUtils.getConnection(dataSource);
    if (!DataSourceUtils.isConnectionTransactional(connection, dataSource)) {
      DataSourceUtils.releaseConnection(connection, dataSource);
      throw new IllegalStateException(
          "the active transaction does not manage the DataSource "
              + what
              + " uses: its transaction manager must be a DataSourceTransactionManager (or"
              + " JdbcTransactionManager) over that DataSource");
    }
    return connection;
  }

  public static void release(Connection connection, DataSource dataSource) {
    DataSourceUtils.releaseConnection(connection, dataSource);
  }
}
