package dev.courier.testkit.internal;

import java.io.IOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Removes what a broker or server process left in its temporary directory once it is closed: a
 * PostgreSQL data directory is hundreds of MiB, and left behind by every run they filled /tmp by
 * gigabytes a day.
 */
public final class TempDirectory {

  private static final Logger LOG = LoggerFactory.getLogger(TempDirectory.class);

  private TempDirectory() {}

  /** Deletes the directory and everything under it; what cannot be deleted is logged and left. */
  public static void deleteQuietly(Path directory) {
    if (directory == null || !Files.exists(directory)) {
      return;
    }
    try {
      Files.walkFileTree(
          directory,
          new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attrs)
                throws IOException {
              Files.deleteIfExists(file);
              return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFileFailed(Path file, IOException e) {
              // A file that went away meanwhile (a server's last write racing its stop) is fine.
              return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult postVisitDirectory(Path dir, IOException e) throws IOException {
              Files.deleteIfExists(dir);
              return FileVisitResult.CONTINUE;
            }
          });
    } catch (IOException e) {
      LOG.warn("could not delete {}: {}", directory, e.toString());
    }
  }
}
