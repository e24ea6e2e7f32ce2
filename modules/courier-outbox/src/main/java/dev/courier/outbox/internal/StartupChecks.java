package dev.courier.outbox.internal;

import dev.courier.outbox.OutboxRelayConfig;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import org.apache.kafka.common.config.ConfigException;

/** What must hold before CDC can start, checked up front so the error says what to change. */
public final class StartupChecks {

  private StartupChecks() {}

  public static void verify(OutboxRelayConfig config) {
    try (Connection c =
            DriverManager.getConnection(
                config.jdbcUrl(),
                config.getString(OutboxRelayConfig.DB_USER),
                config.password().value());
        Statement s = c.createStatement()) {
      try (ResultSet rs = s.executeQuery("SHOW wal_level")) {
        rs.next();
        String level = rs.getString(1);
        if (!level.equals("logical")) {
          throw new IllegalStateException(
              "PostgreSQL at "
                  + config.jdbcUrl()
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
          throw new IllegalStateException(
              "user "
                  + config.getString(OutboxRelayConfig.DB_USER)
                  + " may not stream changes: grant"
                  + " it with ALTER ROLE "
                  + config.getString(OutboxRelayConfig.DB_USER)
                  + " WITH REPLICATION ("
                  + OutboxRelayConfig.DB_USER
                  + ")");
        }
      }
    } catch (SQLException e) {
      throw new ConfigException(
          OutboxRelayConfig.DB_HOST, config.jdbcUrl(), "cannot connect: " + e.getMessage());
    }
  }
}
