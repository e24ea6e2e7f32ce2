package dev.courier.testkit.internal;

import dev.courier.core.internal.Failures;
import dev.courier.testkit.FreePorts;
import dev.courier.testkit.InfraSettings;
import dev.courier.testkit.InfraStartupException;
import dev.courier.testkit.PostgresServer;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * PostgreSQL from the binaries zonky publishes on Maven Central, started as a child process. Works
 * as root too: zonky runs initdb and postgres in a user namespace there, which PostgreSQL demands.
 */
final class EmbeddedPostgresServer implements PostgresServer, AutoCloseable {

  private static final String USER = "postgres";
  private static final int LOG_TAIL_LINES = 15;
  private static final int PORT_ATTEMPTS = 3;
  private static final String PORT_TAKEN = "Address already in use";
  private static final Logger LOG = LoggerFactory.getLogger(EmbeddedPostgresServer.class);

  private final EmbeddedPostgres postgres;
  private final String version;

  private EmbeddedPostgresServer(EmbeddedPostgres postgres, String version) {
    this.postgres = postgres;
    this.version = version;
  }

  static EmbeddedPostgresServer start(int port) {
    return start(port, Map.of());
  }

  /**
   * Starts with the logical-decoding settings plus {@code extraConfig} (which may override). With
   * port 0 it picks a free port, and another if something took that one before the server bound it.
   */
  static EmbeddedPostgresServer start(int port, Map<String, String> extraConfig) {
    PortCheck.requireFree(port, InfraSettings.POSTGRES_PORT);
    if (port != 0) {
      return startOn(port, extraConfig);
    }
    for (int attempt = 1; ; attempt++) {
      try {
        return startOn(FreePorts.next(), extraConfig);
      } catch (InfraStartupException e) {
        if (attempt == PORT_ATTEMPTS || !e.getMessage().contains(PORT_TAKEN)) {
          throw e;
        }
        LOG.warn("embedded PostgreSQL lost its port to another process; trying another port");
      }
    }
  }

  private static EmbeddedPostgresServer startOn(int port, Map<String, String> extraConfig) {
    Path log;
    try {
      log = Files.createTempFile("courier-postgres-", ".log");
    } catch (IOException e) {
      throw new InfraStartupException("cannot create a log file for PostgreSQL: " + e, e);
    }
    EmbeddedPostgres.Builder builder =
        EmbeddedPostgres.builder()
            .setPGStartupWait(Duration.ofSeconds(60))
            .setOutputRedirector(ProcessBuilder.Redirect.appendTo(log.toFile()))
            .setErrorRedirector(ProcessBuilder.Redirect.appendTo(log.toFile()));
    PostgresConfig.serverSettings().forEach(builder::setServerConfig);
    extraConfig.forEach(builder::setServerConfig);
    builder.setPort(port);
    // zonky polls for a connection for the whole startup wait even after pg_ctl gave up; the
    // watcher cuts that short so a bad setting fails in a second, not a minute.
    StartFailureWatcher watcher = StartFailureWatcher.watch(log, Thread.currentThread());
    EmbeddedPostgres postgres = null;
    try {
      postgres = builder.start();
      watcher.stop();
      if (watcher.failed()) {
        throw new IOException("pg_ctl reports that the server could not start");
      }
      return new EmbeddedPostgresServer(postgres, serverVersion(postgres));
    } catch (IOException | RuntimeException e) {
      watcher.stop();
      closeQuietly(postgres);
      throw new InfraStartupException(
          "embedded PostgreSQL failed to start: "
              + Failures.describe(e)
              + "; server log "
              + log
              + " ends with:\n"
              + tail(log),
          e);
    }
  }

  @Override
  public String host() {
    return "localhost";
  }

  @Override
  public int port() {
    return postgres.getPort();
  }

  @Override
  public String username() {
    return USER;
  }

  @Override
  public String password() {
    return USER;
  }

  @Override
  public String describe() {
    return "embedded PostgreSQL " + version + " (zonky binaries) on port " + port();
  }

  @Override
  public void close() {
    closeQuietly(postgres);
  }

  private static void closeQuietly(EmbeddedPostgres postgres) {
    if (postgres == null) {
      return;
    }
    try {
      postgres.close();
    } catch (IOException e) {
      LOG.warn("embedded PostgreSQL did not stop cleanly: {}", e.toString());
    }
  }

  private static String serverVersion(EmbeddedPostgres postgres) {
    try (Connection c = postgres.getPostgresDatabase().getConnection();
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SHOW server_version")) {
      rs.next();
      return rs.getString(1);
    } catch (SQLException e) {
      throw new InfraStartupException(
          "embedded PostgreSQL started but does not accept connections: " + e.getMessage(), e);
    }
  }

  private static String tail(Path log) {
    try {
      List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
      return String.join(
          "\n", lines.subList(Math.max(0, lines.size() - LOG_TAIL_LINES), lines.size()));
    } catch (IOException e) {
      return "(log unreadable: " + e.getMessage() + ")";
    }
  }
}
