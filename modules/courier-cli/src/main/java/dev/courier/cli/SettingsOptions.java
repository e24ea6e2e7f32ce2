package dev.courier.cli;

import dev.courier.core.RenamedKey;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.config.ConfigDef;
import picocli.CommandLine.Option;

/** The options every configurable command shares: a properties file and single overrides. */
public final class SettingsOptions {

  @Option(
      names = {"-c", "--config"},
      paramLabel = "FILE",
      description = "Properties file with this command's settings (Kafka-style keys).")
  Path file;

  @Option(
      names = "--set",
      paramLabel = "KEY=VALUE",
      description =
          "One setting; repeatable. Wins over the file and over COURIER_... environment variables.")
  List<String> overrides = new ArrayList<>();

  /** The merged settings; warnings about ignored environment variables go to {@code err}. */
  Map<String, String> resolve(ConfigDef definition, List<String> prefixes, PrintStream err) {
    return resolve(definition, prefixes, List.of(), err);
  }

  /** As {@link #resolve(ConfigDef, List, PrintStream)}, accepting old names of settings. */
  Map<String, String> resolve(
      ConfigDef definition, List<String> prefixes, List<RenamedKey> renamed, PrintStream err) {
    List<String> warnings = new ArrayList<>();
    Map<String, String> settings =
        new CliSettings(definition, prefixes, renamed)
            .resolve(file, System.getenv(), overrides, warnings);
    warnings.forEach(w -> err.println("warning: " + w));
    return settings;
  }
}
