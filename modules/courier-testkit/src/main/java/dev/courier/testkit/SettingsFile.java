package dev.courier.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.stream.Collectors;

/** A properties file of settings for a service under test ({@code courier ... --config FILE}). */
public final class SettingsFile {

  private SettingsFile() {}

  /** Writes {@code key=value} lines, in the map's order, to a new temporary file. */
  public static Path write(Map<String, ?> settings) {
    try {
      Path file = Files.createTempFile("courier-settings-", ".properties");
      Files.writeString(
          file,
          settings.entrySet().stream()
              .map(e -> e.getKey() + "=" + e.getValue())
              .collect(Collectors.joining("\n", "", "\n")));
      return file;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write a settings file", e);
    }
  }
}
