package dev.courier.idempotency.internal;

import java.net.ConnectException;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.sql.SQLException;
import java.sql.SQLRecoverableException;
import java.sql.SQLTransientException;

/**
 * Whether a failure of the database is one that waiting fixes: the connection lost or refused (a
 * crash, a restart, a failover), a deadlock or serialization failure, the server out of resources
 * or shutting down. Pure: it reads the cause chain and SQL states only.
 */
public final class TransientFailures {

  /**
   * SQL state classes that pass: 08 connection exception, 40 transaction rollback (deadlock,
   * serialization failure), 53 insufficient resources, 57P operator intervention (shutdown).
   */
  private static final String[] TRANSIENT_STATES = {"08", "40", "53", "57P"};

  private TransientFailures() {}

  /** A record that failed for a reason waiting fixes. */
  public static boolean isTransient(dev.courier.idempotency.RecordResult<?, ?> result) {
    return result.outcome() == dev.courier.idempotency.Outcome.FAILED
        && isTransient(result.failure());
  }

  public static boolean isTransient(Throwable failure) {
    for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (t instanceof SQLTransientException
          || t instanceof SQLRecoverableException
          || t instanceof ConnectException
          || t instanceof SocketTimeoutException
          || t instanceof SocketException) {
        return true;
      }
      if (t instanceof SQLException sql && sql.getSQLState() != null) {
        for (String state : TRANSIENT_STATES) {
          if (sql.getSQLState().startsWith(state)) {
            return true;
          }
        }
      }
    }
    return false;
  }
}
