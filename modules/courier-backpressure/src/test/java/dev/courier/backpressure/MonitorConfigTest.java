package dev.courier.backpressure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.apache.kafka.common.config.ConfigException;
import org.junit.jupiter.api.Test;

class MonitorConfigTest {

  @Test
  void defaultsNeedOnlyBootstrapServers() {
    MonitorConfig c = new MonitorConfig(Map.of("bootstrap.servers", "k:9092"));
    assertThat(c.tickInterval().toMillis()).isEqualTo(5000);
    assertThat(c.window().toSeconds()).isEqualTo(120);
    assertThat(c.estimateAge()).isFalse();
  }

  @Test
  void badValuesNameTheirKey() {
    assertThatThrownBy(() -> new MonitorConfig(Map.of()))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("bootstrap.servers");
    assertThatThrownBy(
            () ->
                new MonitorConfig(
                    Map.of("bootstrap.servers", "k:9092", "monitor.oldest.age.mode", "guess")))
        .hasMessageContaining("monitor.oldest.age.mode");
    assertThatThrownBy(
            () ->
                new MonitorConfig(
                    Map.of("bootstrap.servers", "k:9092", "monitor.groups.exclude.pattern", "(")))
        .hasMessageContaining("monitor.groups.exclude.pattern");
    assertThatThrownBy(
            () ->
                new MonitorConfig(
                    Map.of(
                        "bootstrap.servers", "k:9092",
                        "monitor.tick.interval.ms", "5000",
                        "monitor.window.ms", "6000")))
        .hasMessageContaining("monitor.window.ms")
        .hasMessageContaining("two ticks");
  }

  @Test
  void clientSettingsPassWithThePrefix() {
    MonitorConfig c =
        new MonitorConfig(Map.of("bootstrap.servers", "k:9092", "kafka.security.protocol", "SSL"));
    assertThat(c.clients().admin())
        .containsEntry("security.protocol", "SSL")
        .containsEntry("bootstrap.servers", "k:9092");
  }
}
