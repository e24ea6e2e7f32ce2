package dev.courier.core.internal;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.sql.DataSource;

/**
 * Plain versioned SQL migrations for PostgreSQL, shipped in a module's jar as {@code
 * db/<module>/V<n>__<description>.sql} and applied in order, once each, under an advisory lock so
 * concurrent starts do not race. Applied versions are recorded in {@code courier_schema_history}.
 */
public final class SqlMigrations {

  private static final Pattern FILE = Pattern.compile("V(\\d+)__(.+)\\.sql");
  private static final long LOCK_KEY = 0x636f7572696572L; // "courier"

  private SqlMigrations() {}

  /**
   * Applies the module's migrations that are not yet recorded.
   *
   * @param files file names under {@code db/<module>/}, e.g. {@code V1__keys.sql}, in order
   * @return how many were applied now
   */
  public static int apply(DataSource dataSource, String module, List<String> files) {
    try (Connection c = dataSource.getConnection()) {
      c.setAutoCommit(false);
      try (Statement s = c.createStatement()) {
        s.execute("SELECT pg_advisory_xact_lock(" + LOCK_KEY + ")");
        s.execute(
            "CREATE TABLE IF NOT EXISTS courier_schema_history ("
                + " module text NOT NULL, version integer NOT NULL, description text NOT NULL,"
                + " applied_at timestamptz NOT NULL DEFAULT now(), PRIMARY KEY (module, version))");
      }
      Set<Integer> applied = applied(c, module);
      int count = 0;
      int previous = 0;
      for (String file : files) {
        Matcher m = FILE.matcher(file);
        if (!m.matches()) {
          throw new IllegalArgumentException(
              "migration " + file + " is not named V<n>__<description>.sql");
        }
        int version = Integer.parseInt(m.group(1));
        if (version <= previous) {
          throw new IllegalArgumentException(
              "migrations of " + module + " are out of order at " + file);
        }
        previous = version;
        if (applied.contains(version)) {
          continue;
        }
        try (Statement s = c.createStatement()) {
          s.execute(read(module, file));
        }
        try (PreparedStatement ps =
            c.prepareStatement(
                "INSERT INTO courier_schema_history (module, version, description) VALUES (?, ?, ?)")) {
          ps.setString(1, module);
          ps.setInt(2, version);
          ps.setString(3, m.group(2).replace('_', ' '));
          ps.executeUpdate();
        }
        count++;
      }
      c.commit();
      return count;
    } catch (SQLException e) {
      throw new IllegalStateException("migrating " + module + " failed: " + e.getMessage(), e);
    }
  }

  private static Set<Integer> applied(Connection c, String module) throws SQLException {
    Set<Integer> versions = new HashSet<>();
    try (PreparedStatement ps =
        c.prepareStatement("SELECT version FROM courier_schema_history WHERE module = ?")) {
      ps.setString(1, module);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          versions.add(rs.getInt(1));
        }
      }
    }
    return versions;
  }

  private static String read(String module, String file) {
    String path = "db/" + module + "/" + file;
    try (InputStream in = SqlMigrations.class.getClassLoader().getResourceAsStream(path)) {
      if (in == null) {
        throw new IllegalStateException("migration " + path + " is not on the classpath");
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new IllegalStateException("cannot read migration " + path, e);
    }
  }
}
