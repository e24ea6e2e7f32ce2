package dev.courier.testkit.internal;

import dev.courier.testkit.InfraSettings;
import dev.courier.testkit.InfraStartupException;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.containers.Network;
import org.testcontainers.kafka.KafkaContainer;
import org.testcontainers.utility.DockerImageName;

/** The official {@code apache/kafka} image through Testcontainers' {@link KafkaContainer}. */
final class ContainerKafkaBroker extends ManagedKafka {

  /** Name and port other containers on {@link #network()} reach the broker at. */
  static final String NETWORK_ALIAS = "kafka";

  static final int NETWORK_PORT = 19092;

  private final KafkaContainer container;
  private final Network network;
  private final String image;

  private ContainerKafkaBroker(KafkaContainer container, Network network, String image) {
    this.container = container;
    this.network = network;
    this.image = image;
  }

  static ContainerKafkaBroker start(InfraSettings settings) {
    String image = settings.kafkaImage();
    LocalImages.require(image, InfraSettings.KAFKA_IMAGE, settings.pullImages());
    KafkaContainer container =
        new KafkaContainer(DockerImageName.parse(image).asCompatibleSubstituteFor("apache/kafka"))
            .withEnv("KAFKA_GROUP_INITIAL_REBALANCE_DELAY_MS", "0")
            .withEnv("KAFKA_OFFSETS_TOPIC_NUM_PARTITIONS", "10")
            .withReuse(Containers.reuseEnabled());
    // A network and a second listener only for the registry container beside the broker: a fresh
    // network per run would also defeat container reuse, so it exists only when that image does.
    Network network = null;
    if (LocalImages.present(settings.schemaRegistryImage())) {
      network = Network.newNetwork();
      container
          .withNetwork(network)
          .withNetworkAliases(NETWORK_ALIAS)
          .withListener(NETWORK_ALIAS + ":" + NETWORK_PORT);
    }
    try {
      Containers.start(container, "the Kafka container (" + image + ")");
    } catch (InfraStartupException e) {
      closeNetwork(network);
      throw e;
    }
    return new ContainerKafkaBroker(container, network, image);
  }

  @Override
  public String bootstrapServers() {
    return container.getBootstrapServers();
  }

  @Override
  public String describe() {
    return "Kafka container " + image + " at " + bootstrapServers();
  }

  @Override
  public void pause() {
    DockerClientFactory.instance().client().pauseContainerCmd(container.getContainerId()).exec();
  }

  @Override
  public void resume() {
    DockerClientFactory.instance().client().unpauseContainerCmd(container.getContainerId()).exec();
  }

  /**
   * The Docker network the broker is on, for containers that must reach it; null when no registry
   * image was present at start.
   */
  Network network() {
    return network;
  }

  /** {@code bootstrap.servers} for containers on {@link #network()}. */
  String networkBootstrapServers() {
    return NETWORK_ALIAS + ":" + NETWORK_PORT;
  }

  @Override
  protected void stop() {
    if (!Containers.reuseEnabled()) {
      container.stop();
      closeNetwork(network);
    }
  }

  private static void closeNetwork(Network network) {
    if (network != null) {
      network.close();
    }
  }
}
