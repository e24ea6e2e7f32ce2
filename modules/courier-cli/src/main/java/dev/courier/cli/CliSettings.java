package dev.courier.cli;

import dev.courier.core.CrashPoint;
import dev.courier.core.RenamedKey;
import dev.courier.core.internal.RenamedKeys;
import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigException;

/**
 * The settings of one command, from (lowest first) a properties file, {@code COURIER_...}
 * environment variables and {@code --set key=value}. Keys are Kafka-style; an environment variable
 * names one as the Confluent images do: {@code COURIER_MONITOR_TICK_INTERVAL_MS} is {@code
 * monitor.tick.interval.ms} ({@code _} is a dot, {@code __} an underscore, {@code ___} a dash).
 *
 * <p>A key the command does not declare is an error when it comes from the file or {@code --set} (a
 * typo must not silently fall back to a default); from the environment it is a warning, since one
 * environment often carries the variables of several services.
 */
public final class CliSettings {

  public static final String ENV_PREFIX = "COURIER_";

  /** Variables of Courier's tooling that are not settings of any command. */
  private static final Set<String> NOT_SETTINGS =
      Set.of(
          "COURIER_INFRA",
          "COURIER_SHARED_DIR",
          "COURIER_JAVA_OPTS",
          "COURIER_HOME",
          CrashPoint.ARM_ENV);

  private final ConfigDef definition;
  private final List<String> prefixes;
  private final List<RenamedKey> renamed;

  /**
   * @param definition the keys the command declares
   * @param prefixes prefixes passed through to the clients (e.g. {@code kafka.})
   */
  public CliSettings(ConfigDef definition, List<String> prefixes) {
    this(definition, prefixes, List.of());
  }

  /**
   * @param renamed old names still accepted (with a warning) and moved to their new names
   */
  public CliSettings(ConfigDef definition, List<String> prefixes, List<RenamedKey> renamed) {
    this.definition = definition;
    this.prefixes = List.copyOf(prefixes);
    this.renamed = List.copyOf(renamed);
  }

  /**
   * Merges the sources; the result still has to pass the command's config class, which checks
   * types, ranges and required keys and names the key in its error.
   *
   * @throws ConfigException naming the key and where it came from
   */
  public Map<String, String> resolve(
      Path file, Map<String, String> environment, List<String> overrides, List<String> warnings) {
    Map<String, String> settings = new LinkedHashMap<>();
    if (file != null) {
      Properties properties = read(file);
      for (String key : properties.stringPropertyNames()) {
        requireKnown(key, "file " + file);
        settings.put(key, properties.getProperty(key).trim());
      }
    }
    environment.entrySet().stream()
        .filter(e -> e.getKey().startsWith(ENV_PREFIX) && !NOT_SETTINGS.contains(e.getKey()))
        .sorted(Map.Entry.comparingByKey())
        .forEach(
            e -> {
              String key = keyOf(e.getKey());
              if (known(key)) {
                settings.put(key, e.getValue());
              } else {
                warnings.add(
                    "ignoring environment variable " + e.getKey() + ": no setting '" + key + "'");
              }
            });
    for (String override : overrides) {
      int eq = override.indexOf('=');
      if (eq < 1) {
        throw new ConfigException("--set expects key=value, got '" + override + "'");
      }
      String key = override.substring(0, eq).trim();
      requireKnown(key, "--set");
      settings.put(key, override.substring(eq + 1));
    }
    Map<String, String> current = new LinkedHashMap<>();
    RenamedKeys.apply(settings, renamed).forEach((k, v) -> current.put(k, String.valueOf(v)));
    return current;
  }

  /** {@code COURIER_RETRY_MAX_ATTEMPTS} -> {@code retry.max.attempts}. */
  public static String keyOf(String variable) {
    String rest = variable.substring(ENV_PREFIX.length()).toLowerCase(Locale.ROOT);
    return rest.replace("___", "\u0001")
        .replace("__", "\u0002")
        .replace('_', '.')
        .replace('\u0001', '-')
        .replace('\u0002', '_');
  }

  /** {@code retry.max.attempts} -> {@code COURIER_RETRY_MAX_ATTEMPTS}. */
  public static String variableOf(String key) {
    return ENV_PREFIX
        + key.replace("_", "__").replace("-", "___").replace('.', '_').toUpperCase(Locale.ROOT);
  }

  private boolean known(String key) {
    return definition.names().contains(key)
        || prefixes.stream().anyMatch(key::startsWith)
        || renamed.stream().anyMatch(r -> r.oldName().equals(key));
  }

  private void requireKnown(String key, String source) {
    if (!known(key)) {
      Set<String> keys = new TreeSet<>(definition.names());
      List<String> hints = new ArrayList<>(keys);
      prefixes.forEach(p -> hints.add(p + "*"));
      throw new ConfigException(
          "Unknown configuration '"
              + key
              + "' in "
              + source
              + "; this command takes: "
              + String.join(", ", hints));
    }
  }

  private static Properties read(Path file) {
    Properties properties = new Properties();
    try (Reader reader = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
      properties.load(reader);
      return properties;
    } catch (IOException e) {
      throw new ConfigException("cannot read configuration file " + file + ": " + e.getMessage());
    }
  }
}
