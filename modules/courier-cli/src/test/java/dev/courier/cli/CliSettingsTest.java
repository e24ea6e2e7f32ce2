package dev.courier.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.courier.backpressure.MonitorConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.config.ConfigException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CliSettingsTest {

  @TempDir Path tmp;

  private final CliSettings settings =
      new CliSettings(MonitorConfig.configDef(), List.of("kafka."));

  @Test
  void environmentNamesMapToKafkaStyleKeysBothWays() {
    assertThat(CliSettings.keyOf("COURIER_MONITOR_TICK_INTERVAL_MS"))
        .isEqualTo("monitor.tick.interval.ms");
    assertThat(CliSettings.keyOf("COURIER_KAFKA_SECURITY__PROTOCOL"))
        .isEqualTo("kafka.security_protocol");
    assertThat(CliSettings.keyOf("COURIER_A___B")).isEqualTo("a-b");
    for (String key : List.of("monitor.tick.interval.ms", "kafka.sasl.jaas-config", "a_b.c")) {
      assertThat(CliSettings.keyOf(CliSettings.variableOf(key))).isEqualTo(key);
    }
  }

  @Test
  void setWinsOverEnvironmentWhichWinsOverTheFile() throws Exception {
    Path file = tmp.resolve("monitor.properties");
    Files.writeString(
        file,
        "bootstrap.servers=file:9092\nmonitor.tick.interval.ms=1000\nmonitor.window.ms=60000\n");
    List<String> warnings = new ArrayList<>();
    Map<String, String> resolved =
        settings.resolve(
            file,
            Map.of(
                "COURIER_MONITOR_TICK_INTERVAL_MS", "2000",
                "COURIER_MONITOR_WINDOW_MS", "90000",
                "COURIER_INFRA", "embedded",
                "PATH", "/usr/bin"),
            List.of("monitor.window.ms=30000", "kafka.client.id=ops"),
            warnings);
    assertThat(resolved)
        .containsEntry("bootstrap.servers", "file:9092")
        .containsEntry("monitor.tick.interval.ms", "2000")
        .containsEntry("monitor.window.ms", "30000")
        .containsEntry("kafka.client.id", "ops")
        .doesNotContainKey("infra");
    assertThat(warnings).isEmpty();
  }

  @Test
  void anUnknownKeyInTheFileOrSetFailsNamingItAndItsSource() throws Exception {
    Path file = tmp.resolve("typo.properties");
    Files.writeString(file, "monitor.tick.ms=1000\n");
    assertThatThrownBy(() -> settings.resolve(file, Map.of(), List.of(), new ArrayList<>()))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("'monitor.tick.ms'")
        .hasMessageContaining(file.toString())
        .hasMessageContaining("monitor.tick.interval.ms");
    assertThatThrownBy(
            () ->
                settings.resolve(null, Map.of(), List.of("monitor.windw.ms=1"), new ArrayList<>()))
        .hasMessageContaining("'monitor.windw.ms' in --set");
    assertThatThrownBy(
            () -> settings.resolve(null, Map.of(), List.of("novalue"), new ArrayList<>()))
        .hasMessageContaining("key=value");
  }

  @Test
  void anUnknownEnvironmentVariableIsAWarningNotAFailure() {
    List<String> warnings = new ArrayList<>();
    Map<String, String> resolved =
        settings.resolve(null, Map.of("COURIER_RELAY_HTTP_PORT", "9465"), List.of(), warnings);
    assertThat(resolved).isEmpty();
    assertThat(warnings)
        .containsExactly(
            "ignoring environment variable COURIER_RELAY_HTTP_PORT: no setting 'relay.http.port'");
  }
}
