package dev.courier.lab;

import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.core.LoggerContext;

/**
 * Sends the lab's log lines (Kafka's clients and broker, Debezium, PostgreSQL's driver) to a file:
 * on a terminal they interleave with the story and its checks. {@code --verbose} keeps them there.
 */
final class LabLog {

  private LabLog() {}

  /** Reconfigures logging to a new file and returns its path. */
  static Path toFile() {
    try {
      Path file = Files.createTempFile("courier-lab-", ".log");
      // log4j2.xml reads both when it is (re)configured.
      System.setProperty("courier.log.file", file.toString());
      System.setProperty("courier.log.appender", "file");
      ((LoggerContext) LogManager.getContext(false)).reconfigure();
      return file;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create the lab's log file", e);
    }
  }

  /** A stream that appends to the log file, for libraries that print instead of logging. */
  static PrintStream append(Path file) {
    try {
      return new PrintStream(
          Files.newOutputStream(file, StandardOpenOption.APPEND), true, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write the lab's log file " + file, e);
    }
  }
}
