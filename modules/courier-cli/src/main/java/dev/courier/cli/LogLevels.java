package dev.courier.cli;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;

/**
 * Courier's log-level properties ({@code -Dcourier.debezium.log.level=info}) in the words of
 * slf4j-simple, courier.jar's logging provider, whose defaults are in {@code
 * simplelogger.properties}. slf4j-simple reads its settings once, when the first logger is made, so
 * {@link #apply()} runs first in {@link Courier#main}.
 */
final class LogLevels {

  static final String LOGGER = "org.slf4j.simpleLogger.log.";
  static final String ROOT = "org.slf4j.simpleLogger.defaultLogLevel";

  private static final Map<String, List<String>> KEYS =
      Map.of(
          "courier.log.level", List.of(LOGGER + "dev.courier"),
          "courier.root.log.level", List.of(ROOT),
          "courier.kafka.log.level", List.of(LOGGER + "org.apache.kafka.clients.NetworkClient"),
          "courier.debezium.log.level",
              List.of(
                  LOGGER + "io.debezium.embedded.async.AsyncEmbeddedEngine",
                  LOGGER + "io.debezium.connector.postgresql.PostgresConnector",
                  LOGGER + "io.debezium.connector.common.BaseSourceTask",
                  LOGGER + "io.debezium.metrics.stats.MeasurementCollector"));

  private LogLevels() {}

  /** What slf4j-simple understands; it would take anything else for info without a word. */
  static final List<String> LEVELS = List.of("trace", "debug", "info", "warn", "error", "off");

  /**
   * slf4j-simple's settings for Courier's properties among these; one already set in slf4j-simple's
   * own words wins, being the more precise.
   *
   * @throws IllegalArgumentException naming the property whose level is none of {@link #LEVELS}
   */
  static Map<String, String> translate(Properties properties) {
    Map<String, String> settings = new LinkedHashMap<>();
    KEYS.forEach(
        (courierKey, simpleKeys) -> {
          String given = properties.getProperty(courierKey);
          if (given != null) {
            String level = given.trim().toLowerCase(Locale.ROOT);
            if (!LEVELS.contains(level)) {
              throw new IllegalArgumentException(
                  "Invalid value " + given + " for -D" + courierKey + ": one of " + LEVELS);
            }
            for (String key : simpleKeys) {
              if (properties.getProperty(key) == null) {
                settings.put(key, level);
              }
            }
          }
        });
    return settings;
  }

  /** Sets this JVM's slf4j-simple properties from Courier's, before the first logger reads them. */
  static void apply() {
    translate(System.getProperties()).forEach(System::setProperty);
  }
}
