package dev.courier.testkit.internal;

import java.nio.file.Files;
import java.nio.file.Path;
import org.testcontainers.DockerClientFactory;

/** Whether a Docker engine answers, asked cheaply first so machines without Docker never wait. */
class DockerProbe {

  record Result(boolean available, String detail) {}

  Result probe() {
    String host = System.getenv("DOCKER_HOST");
    if (host == null || host.isBlank()) {
      if (!Files.exists(Path.of("/var/run/docker.sock"))) {
        return new Result(false, "DOCKER_HOST is unset and /var/run/docker.sock does not exist");
      }
      host = "unix:///var/run/docker.sock";
    } else if (host.startsWith("unix://") && !Files.exists(Path.of(host.substring(7)))) {
      return new Result(false, "DOCKER_HOST=" + host + " names a socket that does not exist");
    }
    try {
      if (DockerClientFactory.instance().isDockerAvailable()) {
        String version = DockerClientFactory.instance().getActiveApiVersion();
        return new Result(true, "Docker answers at " + host + " (API " + version + ")");
      }
      return new Result(false, "no Docker engine answers at " + host);
    } catch (RuntimeException e) {
      return new Result(false, "no Docker engine answers at " + host + ": " + e.getMessage());
    }
  }
}
