package dev.courier.testkit.internal;

import dev.courier.testkit.Backend;
import dev.courier.testkit.InfraSettings;
import dev.courier.testkit.InfraStartupException;

/** The backend to run and why, decided from the settings and whether Docker answers. */
record BackendSelection(Backend backend, String reason) {

  static BackendSelection decide(InfraSettings settings, DockerProbe docker) {
    switch (settings.infra()) {
      case EXTERNAL:
        return new BackendSelection(
            Backend.EXTERNAL, "requested by " + InfraSettings.INFRA + "=external");
      case EMBEDDED:
        return new BackendSelection(
            Backend.EMBEDDED, "requested by " + InfraSettings.INFRA + "=embedded");
      case TESTCONTAINERS:
        DockerProbe.Result result = docker.probe();
        if (!result.available()) {
          throw new InfraStartupException(
              InfraSettings.INFRA
                  + "=testcontainers needs a running Docker engine, and none answers ("
                  + result.detail()
                  + "); start Docker or run with -D"
                  + InfraSettings.INFRA
                  + "=embedded.");
        }
        return new BackendSelection(
            Backend.TESTCONTAINERS,
            "requested by " + InfraSettings.INFRA + "=testcontainers; " + result.detail());
      case AUTO:
      default:
        DockerProbe.Result auto = docker.probe();
        return auto.available()
            ? new BackendSelection(
                Backend.TESTCONTAINERS, InfraSettings.INFRA + "=auto and " + auto.detail())
            : new BackendSelection(
                Backend.EMBEDDED, InfraSettings.INFRA + "=auto and " + auto.detail());
    }
  }
}
