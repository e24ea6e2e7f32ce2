package dev.courier.testkit;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import javax.sql.DataSource;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * A database of its own for one test class on the shared PostgreSQL server. Closing it drops the
 * replication slots created in it (a forgotten slot pins WAL on the shared server) and the database
 * itself.
 */
public final class TestDatabase implements AutoCloseable {

  private final PostgresServer server;
  private final String name;
  private final PGSimpleDataSource dataSource;

  private TestDatabase(PostgresServer server, String name) {
    this.server = server;
    this.name = name;
    this.dataSource = dataSource(server, name);
  }

  static TestDatabase create(PostgresServer server, String name) {
    try (Connection c = dataSource(server, "postgres").getConnection();
        Statement s = c.createStatement()) {
      s.execute("CREATE DATABASE " + name);
    } catch (SQLException e) {
      throw new IllegalStateException(
          "could not create database " + name + " on " + server.describe() + ": " + e.getMessage(),
          e);
    }
    return new TestDatabase(server, name);
  }

  public String name() {
    return name;
  }

  public String jdbcUrl() {
    return server.jdbcUrl(name);
  }

  public String username() {
    return server.username();
  }

  public String password() {
    return server.password();
  }

  public PostgresServer server() {
    return server;
  }

  /** A non-pooling DataSource on this database. */
  public DataSource dataSource() {
    return dataSource;
  }

  public Connection connection() throws SQLException {
    return dataSource.getConnection();
  }

  @Override
  public void close() {
    try (Connection c = dataSource(server, "postgres").getConnection()) {
      // A walsender still attached to a slot keeps it active; end it (waiting until it has exited,
      // not only signalled) before dropping the slot.
      try (PreparedStatement ps =
          c.prepareStatement(
              "SELECT pg_terminate_backend(active_pid, 10000) FROM pg_replication_slots"
                  + " WHERE database = ? AND active_pid IS NOT NULL")) {
        ps.setString(1, name);
        ps.execute();
      }
      try (PreparedStatement ps =
          c.prepareStatement(
              "SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots"
                  + " WHERE database = ? AND NOT active")) {
        ps.setString(1, name);
        ps.execute();
      }
      try (Statement s = c.createStatement()) {
        s.execute("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)");
      }
    } catch (SQLException e) {
      throw new IllegalStateException("could not drop database " + name + ": " + e.getMessage(), e);
    }
  }

  private static PGSimpleDataSource dataSource(PostgresServer server, String database) {
    PGSimpleDataSource ds = new PGSimpleDataSource();
    ds.setServerNames(new String[] {server.host()});
    ds.setPortNumbers(new int[] {server.port()});
    ds.setDatabaseName(database);
    ds.setUser(server.username());
    ds.setPassword(server.password());
    return ds;
  }

  @Override
  public String toString() {
    return "TestDatabase[" + name + " on " + server.describe() + "]";
  }
}
