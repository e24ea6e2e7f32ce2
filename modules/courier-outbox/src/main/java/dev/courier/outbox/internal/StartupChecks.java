package dev.courier.outbox.internal;

import dev.courier.outbox.OutboxRelayConfig;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import org.apache.kafka.common.config.ConfigException;

/**
 * What must hold in PostgreSQL before CDC can start, checked up front so errors say what to change.
 */
public final class StartupChecks {

  private StartupChecks() {}

  /**
   * @throws Outage when PostgreSQL cannot be reached now (the relay waits)
   * @throws ConfigException naming the key or the server setting to change
   */
  public static void verify(OutboxRelayConfig config, PostgresAccess postgres) throws Outage {
    try (Connection c = postgres.connect();
        Statement s = c.createStatement()) {
      try (ResultSet rs = s.executeQuery("SHOW wal_level")) {
        rs.next();
        String level = rs.getString(1);
        if (!level.equals("logical")) {
          throw new ConfigException(
              "PostgreSQL at "
                  + postgres.where()
                  + " runs with wal_level="
                  + level
                  + "; the outbox relay needs wal_level=logical (set it in postgresql.conf or with"
                  + " -c wal_level=logical, then restart PostgreSQL)");
        }
      }
      try (ResultSet rs =
          s.executeQuery(
              "SELECT rolreplication OR rolsuper FROM pg_roles WHERE rolname = current_user")) {
        rs.next();
        if (!rs.getBoolean(1)) {
          String user = config.getString(OutboxRelayConfig.DATABASE_USER);
          throw new ConfigException(
              OutboxRelayConfig.DATABASE_USER,
              user,
              "user "
                  + user
                  + " may not stream changes: grant it with ALTER ROLE "
                  + user
                  + " WITH REPLICATION");
        }
      }
    } catch (SQLException e) {
      throw postgres.classify(e);
    }
  }
}
