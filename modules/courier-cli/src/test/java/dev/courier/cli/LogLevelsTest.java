package dev.courier.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.InputStream;
import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.api.Test;

class LogLevelsTest {

  @Test
  void courierPropertiesBecomeSlf4jSimpleOnes() {
    Properties set = new Properties();
    set.setProperty("courier.debezium.log.level", " INFO ");
    set.setProperty("courier.log.level", "warn");
    assertThat(LogLevels.translate(set))
        .containsEntry(LogLevels.LOGGER + "dev.courier", "warn")
        .containsEntry(LogLevels.LOGGER + "io.debezium.embedded.async.AsyncEmbeddedEngine", "info")
        .containsEntry(LogLevels.LOGGER + "io.debezium.metrics.stats.MeasurementCollector", "info")
        .hasSize(5);
  }

  @Test
  void aLoggerSetInSlf4jSimplesOwnWordsWins() {
    Properties set = new Properties();
    set.setProperty("courier.root.log.level", "info");
    set.setProperty("courier.kafka.log.level", "debug");
    set.setProperty(LogLevels.LOGGER + "org.apache.kafka.clients.NetworkClient", "trace");
    assertThat(LogLevels.translate(set)).containsExactly(Map.entry(LogLevels.ROOT, "info"));
  }

  @Test
  void aLevelSlf4jSimpleWouldTakeForInfoIsRefusedNamingTheProperty() {
    Properties set = new Properties();
    set.setProperty("courier.debezium.log.level", "verbose");
    assertThatThrownBy(() -> LogLevels.translate(set))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "Invalid value verbose for -Dcourier.debezium.log.level: one of"
                + " [trace, debug, info, warn, error, off]");
  }

  @Test
  void nothingSetChangesNothing() {
    assertThat(LogLevels.translate(new Properties())).isEmpty();
  }

  @Test
  void everyLoggerCourierNamesHasADefaultInTheJarsSettings() throws IOException {
    Properties defaults = new Properties();
    try (InputStream in = getClass().getResourceAsStream("/simplelogger.properties")) {
      defaults.load(in);
    }
    Properties all = new Properties();
    for (String key :
        new String[] {
          "courier.log.level",
          "courier.root.log.level",
          "courier.kafka.log.level",
          "courier.debezium.log.level"
        }) {
      all.setProperty(key, "info");
    }
    assertThat(defaults.stringPropertyNames())
        .containsAll(LogLevels.translate(all).keySet())
        .contains("org.slf4j.simpleLogger.logFile");
    assertThat(defaults.getProperty("org.slf4j.simpleLogger.logFile")).isEqualTo("System.err");
  }
}
