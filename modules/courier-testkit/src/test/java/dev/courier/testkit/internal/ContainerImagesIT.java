package dev.courier.testkit.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.courier.testkit.Backend;
import dev.courier.testkit.BackendMatrix;
import dev.courier.testkit.CourierInfra;
import dev.courier.testkit.CourierInfraTest;
import dev.courier.testkit.InfraSettings;
import dev.courier.testkit.InfraStartupException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/** Image handling of the Testcontainers backend: nothing is pulled silently. */
@CourierInfraTest
@BackendMatrix
@EnabledIfSystemProperty(
    named = InfraSettings.INFRA,
    matches = "testcontainers",
    disabledReason = "needs a Docker engine; runs in CI's Testcontainers leg")
class ContainerImagesIT {

  private static final String ABSENT = "courier-test/absent-image:0.0.1";

  @Test
  void sharedInfrastructureRunsOnContainers(CourierInfra infra) {
    assertThat(infra.backend()).isEqualTo(Backend.TESTCONTAINERS);
    assertThat(infra.kafka().describe()).startsWith("Kafka container apache/kafka:");
    assertThat(infra.postgres().describe()).startsWith("PostgreSQL container postgres:");
  }

  @Test
  void missingImageWithPullingOffIsOneLineNamingTheImage() {
    assertThatThrownBy(() -> LocalImages.require(ABSENT, InfraSettings.KAFKA_IMAGE, false))
        .isInstanceOf(InfraStartupException.class)
        .hasMessage(
            "image "
                + ABSENT
                + " (courier.image.kafka) is not present on the Docker engine and"
                + " courier.testcontainers.pull=false; pull it first (docker pull "
                + ABSENT
                + ") or run with -Dcourier.infra=embedded")
        .hasMessageNotContaining("\n");
  }

  @Test
  void registryContainerStandsAsideWhenItsImageIsAbsent() {
    InfraSettings settings =
        InfraSettings.from(key -> key.equals(InfraSettings.SCHEMA_REGISTRY_IMAGE) ? ABSENT : null);
    ContainerSchemaRegistryProvider provider = new ContainerSchemaRegistryProvider();
    assertThat(provider.supports(Backend.TESTCONTAINERS, settings)).isFalse();
    assertThat(provider.supports(Backend.EMBEDDED, settings)).isFalse();
    assertThat(provider.priority()).isGreaterThan(0);
  }
}
