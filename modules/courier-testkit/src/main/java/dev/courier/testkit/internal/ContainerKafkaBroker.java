package dev.courier.testkit.internal;

import dev.courier.testkit.InfraSettings;
import dev.courier.testkit.InfraStartupException;
import org.testcontainers.kafka.KafkaContainer;
import org.testcontainers.utility.DockerImageName;

/** The official {@code apache/kafka} image through Testcontainers' {@link KafkaContainer}. */
final class ContainerKafkaBroker extends ManagedKafka {

  private final KafkaContainer container;
  private final String image;

  private ContainerKafkaBroker(KafkaContainer container, String image) {
    this.container = container;
    this.image = image;
  }

  static ContainerKafkaBroker start(InfraSettings settings) {
    String image = settings.kafkaImage();
    LocalImages.require(image, InfraSettings.KAFKA_IMAGE, settings.pullImages());
    KafkaContainer container =
        new KafkaContainer(DockerImageName.parse(image).asCompatibleSubstituteFor("apache/kafka"))
            .withEnv("KAFKA_GROUP_INITIAL_REBALANCE_DELAY_MS", "0")
            .withEnv("KAFKA_OFFSETS_TOPIC_NUM_PARTITIONS", "10")
            .withReuse(ContainerReuse.enabled());
    try {
      container.start();
    } catch (RuntimeException e) {
      container.stop();
      throw new InfraStartupException(
          "the Kafka container (" + image + ") failed to start: " + Failures.describe(e), e);
    }
    return new ContainerKafkaBroker(container, image);
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
  protected void stop() {
    if (!ContainerReuse.enabled()) {
      container.stop();
    }
  }
}
