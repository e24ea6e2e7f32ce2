package dev.courier.testkit.internal;

import io.zonky.test.db.postgres.embedded.PgBinaryResolver;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Set;
import java.util.zip.ZipFile;
import javax.sql.DataSource;

/**
 * A base backup of a running primary made the low-level way ({@code pg_backup_start}, a copy of the
 * data directory, {@code pg_backup_stop}), since the embedded binaries carry no {@code
 * pg_basebackup}; the copy starts as a standby that streams the WAL it misses through a physical
 * slot reserved before the backup began.
 */
public final class BaseBackup {

  /** What PostgreSQL's documentation says a base backup leaves out, plus the embedded lock. */
  private static final Set<String> SKIPPED =
      Set.of("postmaster.pid", "postmaster.opts", "epg-lock", "standby.signal", "backup_label");

  private static final Set<String> EMPTIED =
      Set.of(
          "pg_wal",
          "pg_replslot",
          "pg_dynshmem",
          "pg_notify",
          "pg_serial",
          "pg_snapshots",
          "pg_stat_tmp",
          "pg_subtrans");

  private BaseBackup() {}

  /**
   * Copies the primary's data directory into {@code to} as a standby of it, streaming through a
   * physical slot named {@code slot} (also its application name) and feeding back what its slots
   * need, as {@code pg_basebackup -R} would set it up.
   */
  public static void copy(DataSource primary, Path from, Path to, String slot, int primaryPort) {
    try (Connection c = primary.getConnection();
        Statement s = c.createStatement()) {
      s.execute("SELECT pg_create_physical_replication_slot('" + slot + "', true)");
      s.execute("SELECT pg_backup_start('courier-standby-" + slot + "', true)");
      copyTree(from, to);
      try (ResultSet rs = s.executeQuery("SELECT labelfile FROM pg_backup_stop(false)")) {
        rs.next();
        Files.writeString(to.resolve("backup_label"), rs.getString(1), StandardCharsets.UTF_8);
      }
      Files.createDirectories(to.resolve("pg_wal").resolve("archive_status"));
      // PostgreSQL refuses a data directory others may read.
      Files.setPosixFilePermissions(
          to, java.nio.file.attribute.PosixFilePermissions.fromString("rwx------"));
      Files.writeString(to.resolve("standby.signal"), "");
      Files.writeString(
          to.resolve("postgresql.auto.conf"),
          String.join(
              "\n",
              "hot_standby = on",
              "hot_standby_feedback = on",
              "primary_slot_name = '" + slot + "'",
              "primary_conninfo = 'host=localhost port="
                  + primaryPort
                  + " user=postgres dbname=postgres application_name="
                  + slot
                  + "'",
              ""),
          StandardCharsets.UTF_8,
          java.nio.file.StandardOpenOption.APPEND);
    } catch (SQLException e) {
      throw new IllegalStateException("base backup of the primary failed: " + e, e);
    } catch (IOException e) {
      throw new UncheckedIOException("base backup copy failed", e);
    }
  }

  private static void copyTree(Path from, Path to) throws IOException {
    Files.walkFileTree(
        from,
        new SimpleFileVisitor<>() {
          @Override
          public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attrs)
              throws IOException {
            Path relative = from.relativize(dir);
            Files.createDirectories(to.resolve(relative.toString()));
            return relative.getNameCount() == 1 && EMPTIED.contains(relative.toString())
                ? FileVisitResult.SKIP_SUBTREE
                : FileVisitResult.CONTINUE;
          }

          @Override
          public FileVisitResult visitFile(Path file, BasicFileAttributes attrs)
              throws IOException {
            Path relative = from.relativize(file);
            if (!SKIPPED.contains(relative.toString())) {
              try {
                Files.copy(
                    file, to.resolve(relative.toString()), StandardCopyOption.REPLACE_EXISTING);
              } catch (NoSuchFileException gone) {
                // A temporary file removed while copying: the WAL replay recreates what matters.
              }
            }
            return FileVisitResult.CONTINUE;
          }

          @Override
          public FileVisitResult visitFileFailed(Path file, IOException e) {
            return FileVisitResult.CONTINUE; // vanished between listing and visiting
          }
        });
  }

  /** The binaries of a zonky jar other than the one on the classpath. */
  public static PgBinaryResolver binariesFrom(Path jar) {
    return (system, machine) -> {
      try (ZipFile zip = new ZipFile(jar.toFile())) {
        String name =
            "postgres-" + system.toLowerCase(java.util.Locale.ROOT) + "-" + machine + ".txz";
        var entry = zip.getEntry(name);
        if (entry == null) {
          throw new IOException("no " + name + " in " + jar);
        }
        return new ByteArrayInputStream(zip.getInputStream(entry).readAllBytes());
      }
    };
  }
}
