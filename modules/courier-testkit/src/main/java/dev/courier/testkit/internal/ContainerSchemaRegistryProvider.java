package dev.courier.testkit.internal;

import dev.courier.testkit.Backend;
import dev.courier.testkit.InfraSettings;
import dev.courier.testkit.InfraStartupException;
import dev.courier.testkit.KafkaBroker;
import dev.courier.testkit.SchemaRegistry;
import dev.courier.testkit.SchemaRegistryProvider;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.containers.wait.strategy.Wait;
import org.testcontainers.utility.DockerImageName;

/**
 * Confluent's {@code cp-schema-registry} image on the broker container's network, under the
 * Testcontainers backend, when that image is already present locally. It is never pulled: when
 * absent, the in-process registry serves instead, and the log says so.
 */
public final class ContainerSchemaRegistryProvider implements SchemaRegistryProvider {

  private static final Logger LOG = LoggerFactory.getLogger(ContainerSchemaRegistryProvider.class);
  private static final int PORT = 8081;

  @Override
  public int priority() {
    return 10;
  }

  @Override
  public boolean supports(Backend backend, InfraSettings settings) {
    if (backend != Backend.TESTCONTAINERS) {
      return false;
    }
    String image = settings.schemaRegistryImage();
    if (!LocalImages.present(image)) {
      LOG.info(
          "schema registry image {} ({}) is not present locally and is never pulled: using the"
              + " in-process registry with the Kafka container",
          image,
          InfraSettings.SCHEMA_REGISTRY_IMAGE);
      return false;
    }
    return true;
  }

  @Override
  public SchemaRegistry start(Backend backend, KafkaBroker kafka, InfraSettings settings) {
    if (!(kafka instanceof ContainerKafkaBroker broker) || broker.network() == null) {
      throw new InfraStartupException(
          "the registry container needs the Kafka container on a Docker network, which is created"
              + " only when the registry image is present as the broker starts");
    }
    String image = settings.schemaRegistryImage();
    GenericContainer<?> container =
        new GenericContainer<>(DockerImageName.parse(image))
            .withNetwork(broker.network())
            .withEnv("SCHEMA_REGISTRY_HOST_NAME", "schema-registry")
            .withEnv("SCHEMA_REGISTRY_LISTENERS", "http://0.0.0.0:" + PORT)
            .withEnv(
                "SCHEMA_REGISTRY_KAFKASTORE_BOOTSTRAP_SERVERS",
                "PLAINTEXT://" + broker.networkBootstrapServers())
            .withExposedPorts(PORT)
            .waitingFor(Wait.forHttp("/subjects").forStatusCode(200));
    Containers.start(container, "the schema registry container (" + image + ")");
    return new Running(container, image);
  }

  private record Running(GenericContainer<?> container, String image)
      implements SchemaRegistry, AutoCloseable {
    @Override
    public String url() {
      return "http://" + container.getHost() + ":" + container.getMappedPort(PORT);
    }

    @Override
    public String describe() {
      return "schema registry container " + image + " at " + url();
    }

    @Override
    public void close() {
      container.stop();
    }
  }
}
