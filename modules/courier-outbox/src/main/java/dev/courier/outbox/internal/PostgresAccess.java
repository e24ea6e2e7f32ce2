package dev.courier.outbox.internal;

import dev.courier.core.internal.Failures;
import dev.courier.outbox.OutboxRelayConfig;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Properties;
import javax.net.ssl.SSLException;
import javax.sql.DataSource;
import org.apache.kafka.common.config.ConfigException;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * How the relay reaches PostgreSQL outside Debezium (checks, migrations, slot state): the same
 * host, user and TLS settings Debezium gets, and one place that tells an outage (wait) from a wrong
 * setting (exit naming the key).
 */
public final class PostgresAccess {

  /**
   * How long a query may go without a byte from the server before its connection is given up. A
   * primary that died without closing its sockets (a host gone, a partition) would otherwise hold a
   * read forever; PostgreSQL's own query timeout cannot help, as its cancel request needs that
   * server too. Long enough for a migration waiting for a table lock.
   */
  static final Duration SOCKET_TIMEOUT = Duration.ofSeconds(30);

  private final OutboxRelayConfig config;

  public PostgresAccess(OutboxRelayConfig config) {
    this.config = config;
  }

  public String where() {
    return config.getString(OutboxRelayConfig.DATABASE_HOSTNAME)
        + ":"
        + config.getInt(OutboxRelayConfig.DATABASE_PORT);
  }

  /**
   * A connection, or why there is none.
   *
   * @throws Outage when PostgreSQL is unreachable, starting up, shutting down or full
   * @throws ConfigException naming the key when the credentials, database or TLS settings are wrong
   */
  public Connection connect() throws Outage {
    return connect(SOCKET_TIMEOUT);
  }

  /**
   * A connection whose reads give up after {@code socketTimeout} without an answer, for one that
   * must notice a silent server sooner (the leadership's lease).
   */
  public Connection connect(Duration socketTimeout) throws Outage {
    Properties p = properties();
    p.setProperty("socketTimeout", String.valueOf(seconds(socketTimeout)));
    try {
      return DriverManager.getConnection(config.jdbcUrl(), p);
    } catch (SQLException e) {
      throw classify(e);
    }
  }

  private static long seconds(Duration d) {
    return Math.max(1, (d.toMillis() + 999) / 1000);
  }

  /** A data source with the same settings, for code that wants one (migrations). */
  public DataSource dataSource() {
    PGSimpleDataSource ds = new PGSimpleDataSource();
    ds.setURL(config.jdbcUrl());
    properties()
        .forEach(
            (k, v) -> {
              try {
                ds.setProperty(k.toString(), v.toString());
              } catch (SQLException e) {
                throw new ConfigException(k.toString(), v, e.getMessage());
              }
            });
    return ds;
  }

  private Properties properties() {
    Properties p = new Properties();
    p.setProperty("user", config.getString(OutboxRelayConfig.DATABASE_USER));
    p.setProperty("password", config.password().value());
    p.setProperty("sslmode", config.getString(OutboxRelayConfig.DATABASE_SSLMODE));
    set(p, "sslrootcert", OutboxRelayConfig.DATABASE_SSLROOTCERT);
    set(p, "sslcert", OutboxRelayConfig.DATABASE_SSLCERT);
    set(p, "sslkey", OutboxRelayConfig.DATABASE_SSLKEY);
    if (config.getPassword(OutboxRelayConfig.DATABASE_SSLPASSWORD) != null) {
      p.setProperty(
          "sslpassword", config.getPassword(OutboxRelayConfig.DATABASE_SSLPASSWORD).value());
    }
    p.setProperty("connectTimeout", "10");
    p.setProperty("socketTimeout", String.valueOf(seconds(SOCKET_TIMEOUT)));
    // A peer that vanished with the connection idle (a standby's lock session) is found by the
    // operating system's keepalive probes instead of never.
    p.setProperty("tcpKeepAlive", "true");
    p.setProperty("ApplicationName", config.getString(OutboxRelayConfig.RELAY_NAME));
    return p;
  }

  private void set(Properties p, String name, String key) {
    String value = config.getString(key);
    if (value != null) {
      p.setProperty(name, value);
    }
  }

  /**
   * An SQL failure as an outage (connection refused or lost, starting up, shutting down, too many
   * connections) or as a wrong setting naming the key.
   *
   * @return the outage to wait out
   * @throws ConfigException for anything waiting cannot fix
   */
  public Outage classify(SQLException e) {
    String state = e.getSQLState() == null ? "" : e.getSQLState();
    String why = Failures.describe(e);
    if (hasCause(e, SSLException.class)
        || hasCause(e, java.security.cert.CertificateException.class)) {
      throw new ConfigException(
          OutboxRelayConfig.DATABASE_SSLROOTCERT,
          config.getString(OutboxRelayConfig.DATABASE_SSLROOTCERT),
          "TLS to PostgreSQL at "
              + where()
              + " failed ("
              + OutboxRelayConfig.DATABASE_SSLMODE
              + "="
              + config.getString(OutboxRelayConfig.DATABASE_SSLMODE)
              + "): "
              + why);
    }
    if (state.equals("28P01")) {
      throw new ConfigException(
          OutboxRelayConfig.DATABASE_PASSWORD,
          "[hidden]",
          "PostgreSQL at "
              + where()
              + " refused the password of "
              + config.getString(OutboxRelayConfig.DATABASE_USER)
              + ": "
              + e.getMessage());
    }
    if (state.startsWith("28")) {
      throw new ConfigException(
          OutboxRelayConfig.DATABASE_USER,
          config.getString(OutboxRelayConfig.DATABASE_USER),
          "PostgreSQL at "
              + where()
              + " does not let this user in ("
              + OutboxRelayConfig.DATABASE_SSLMODE
              + "="
              + config.getString(OutboxRelayConfig.DATABASE_SSLMODE)
              + "): "
              + e.getMessage());
    }
    if (state.equals("3D000")) {
      throw new ConfigException(
          OutboxRelayConfig.DATABASE_DBNAME,
          config.getString(OutboxRelayConfig.DATABASE_DBNAME),
          "no such database on " + where());
    }
    if (state.equals("42501")) {
      throw new ConfigException(
          OutboxRelayConfig.DATABASE_USER,
          config.getString(OutboxRelayConfig.DATABASE_USER),
          "lacks a privilege the relay needs: " + e.getMessage());
    }
    return new Outage("PostgreSQL at " + where() + " is not available: " + why, e);
  }

  private static boolean hasCause(Throwable e, Class<? extends Throwable> type) {
    for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (type.isInstance(t)) {
        return true;
      }
    }
    return false;
  }
}
