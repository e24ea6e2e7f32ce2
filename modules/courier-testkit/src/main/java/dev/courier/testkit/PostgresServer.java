package dev.courier.testkit;

/**
 * A real PostgreSQL server with {@code wal_level=logical}, shared by the tests of one JVM. Tests
 * isolate by database: {@link #createDatabase(String)} gives each test class its own.
 */
public interface PostgresServer {

  String host();

  int port();

  /** A superuser: tests create databases, publications and replication slots. */
  String username();

  String password();

  /** Human-readable description, e.g. {@code embedded PostgreSQL 16.15 (zonky) on port 5432}. */
  String describe();

  default String jdbcUrl(String database) {
    return "jdbc:postgresql://" + host() + ":" + port() + "/" + database;
  }

  /**
   * Creates a fresh, empty database whose name starts with the prefix. Closing it drops its
   * replication slots and the database.
   */
  default TestDatabase createDatabase(String prefix) {
    return TestDatabase.create(this, UniqueNames.database(prefix));
  }
}
