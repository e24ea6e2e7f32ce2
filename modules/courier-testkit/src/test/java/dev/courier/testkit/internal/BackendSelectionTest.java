package dev.courier.testkit.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.courier.testkit.Backend;
import dev.courier.testkit.InfraSettings;
import dev.courier.testkit.InfraStartupException;
import org.junit.jupiter.api.Test;

class BackendSelectionTest {

  private static final DockerProbe NO_DOCKER =
      new DockerProbe() {
        @Override
        Result probe() {
          return new Result(false, "DOCKER_HOST is unset and /var/run/docker.sock does not exist");
        }
      };

  private static final DockerProbe DOCKER =
      new DockerProbe() {
        @Override
        Result probe() {
          return new Result(true, "Docker answers at unix:///var/run/docker.sock (API 1.43)");
        }
      };

  @Test
  void embeddedIsTakenAsRequestedWithoutAskingDocker() {
    DockerProbe mustNotBeAsked =
        new DockerProbe() {
          @Override
          Result probe() {
            throw new AssertionError("embedded must not probe Docker");
          }
        };
    BackendSelection selection =
        BackendSelection.decide(
            InfraSettings.defaults().withInfra(InfraSettings.Choice.EMBEDDED), mustNotBeAsked);
    assertThat(selection.backend()).isEqualTo(Backend.EMBEDDED);
    assertThat(selection.reason()).isEqualTo("requested by courier.infra=embedded");
  }

  @Test
  void autoPicksTestcontainersWhenDockerAnswersAndSaysWhy() {
    BackendSelection selection = BackendSelection.decide(InfraSettings.defaults(), DOCKER);
    assertThat(selection.backend()).isEqualTo(Backend.TESTCONTAINERS);
    assertThat(selection.reason()).contains("courier.infra=auto").contains("Docker answers");
  }

  @Test
  void autoFallsBackToEmbeddedWithoutDockerAndSaysWhy() {
    BackendSelection selection = BackendSelection.decide(InfraSettings.defaults(), NO_DOCKER);
    assertThat(selection.backend()).isEqualTo(Backend.EMBEDDED);
    assertThat(selection.reason()).contains("/var/run/docker.sock does not exist");
  }

  @Test
  void testcontainersWithoutDockerIsOneSentenceSayingHowToSwitch() {
    InfraSettings settings =
        InfraSettings.defaults().withInfra(InfraSettings.Choice.TESTCONTAINERS);
    assertThatThrownBy(() -> BackendSelection.decide(settings, NO_DOCKER))
        .isInstanceOf(InfraStartupException.class)
        .hasMessage(
            "courier.infra=testcontainers needs a running Docker engine, and none answers"
                + " (DOCKER_HOST is unset and /var/run/docker.sock does not exist);"
                + " start Docker or run with -Dcourier.infra=embedded.");
  }
}
