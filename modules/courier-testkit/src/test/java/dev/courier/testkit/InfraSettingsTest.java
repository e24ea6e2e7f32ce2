package dev.courier.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.api.Test;

class InfraSettingsTest {

  @Test
  void defaultsAreAutoWithThePinnedImages() {
    InfraSettings settings = InfraSettings.from(key -> null);
    assertThat(settings.infra()).isEqualTo(InfraSettings.Choice.AUTO);
    assertThat(settings.kafkaImage()).isEqualTo("apache/kafka:4.3.1");
    assertThat(settings.postgresImage()).isEqualTo("postgres:16");
    assertThat(settings.postgresPort()).isZero();
    assertThat(settings.pullImages()).isTrue();
  }

  @Test
  void readsEveryKey() {
    Map<String, String> values =
        Map.of(
            "courier.infra", " TestContainers ",
            "courier.image.kafka", "apache/kafka:4.3.0",
            "courier.image.postgres", "postgres:15",
            "courier.postgres.port", "15432",
            "courier.testcontainers.pull", "false");
    InfraSettings settings = InfraSettings.from(values::get);
    assertThat(settings.infra()).isEqualTo(InfraSettings.Choice.TESTCONTAINERS);
    assertThat(settings.kafkaImage()).isEqualTo("apache/kafka:4.3.0");
    assertThat(settings.postgresImage()).isEqualTo("postgres:15");
    assertThat(settings.postgresPort()).isEqualTo(15432);
    assertThat(settings.pullImages()).isFalse();
  }

  @Test
  void badValuesNameTheirKey() {
    assertThatThrownBy(() -> InfraSettings.from(Map.of("courier.infra", "docker")::get))
        .hasMessage(
            "courier.infra='docker' is not one of auto, embedded, testcontainers, external");
    assertThatThrownBy(() -> InfraSettings.from(Map.of("courier.postgres.port", "x")::get))
        .hasMessageContaining("courier.postgres.port='x' is not a port number");
    assertThatThrownBy(() -> InfraSettings.from(Map.of("courier.postgres.port", "70000")::get))
        .hasMessageContaining("courier.postgres.port=70000 is not a port");
    assertThatThrownBy(() -> InfraSettings.from(Map.of("courier.testcontainers.pull", "yes")::get))
        .hasMessage("courier.testcontainers.pull='yes' must be true or false");
  }
}
