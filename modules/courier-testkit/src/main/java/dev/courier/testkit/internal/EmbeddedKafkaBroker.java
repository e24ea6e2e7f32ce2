package dev.courier.testkit.internal;

import dev.courier.core.internal.Failures;
import dev.courier.testkit.InfraStartupException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.common.test.KafkaClusterTestKit;
import org.apache.kafka.common.test.TestKitNodes;
import org.apache.kafka.common.utils.AppInfoParser;
import org.apache.kafka.metadata.bootstrap.BootstrapMetadata;
import org.apache.kafka.server.common.Feature;
import org.apache.kafka.server.common.MetadataVersion;

/**
 * Apache Kafka's own broker code in this JVM: one KRaft node in combined mode (broker and
 * controller), on a free port, through Kafka's {@code KafkaClusterTestKit}.
 */
final class EmbeddedKafkaBroker extends ManagedKafka {

  private final KafkaClusterTestKit cluster;
  private final String bootstrapServers;

  private EmbeddedKafkaBroker(KafkaClusterTestKit cluster) {
    this.cluster = cluster;
    this.bootstrapServers = cluster.bootstrapServers();
  }

  private static BootstrapMetadata productionBootstrap() {
    Map<String, Short> features = new HashMap<>();
    for (Feature f : Feature.PRODUCTION_FEATURES) {
      if (f != Feature.KRAFT_VERSION) {
        features.put(f.featureName(), f.latestProduction());
      }
    }
    return BootstrapMetadata.fromVersions(
        MetadataVersion.latestProduction(), features, "courier testkit");
  }

  static EmbeddedKafkaBroker start() {
    KafkaJarVersions.requireOne(KafkaJarVersions.on(EmbeddedKafkaBroker.class.getClassLoader()));
    KafkaClusterTestKit cluster = null;
    try {
      Path baseDir = Files.createTempDirectory("courier-kafka-");
      TestKitNodes nodes =
          new TestKitNodes.Builder()
              .setCombined(true)
              .setNumBrokerNodes(1)
              .setNumControllerNodes(1)
              .setBaseDirectory(baseDir)
              // The newest production metadata version and features, as kafka-storage format sets
              // them (the test kit's default leaves group.version at 0: no KIP-848 groups).
              .setBootstrapMetadata(productionBootstrap())
              .build();
      cluster =
          new KafkaClusterTestKit.Builder(nodes)
              // A single node: every internal topic must fit on one replica.
              .setConfigProp("offsets.topic.replication.factor", "1")
              .setConfigProp("offsets.topic.num.partitions", "10")
              .setConfigProp("transaction.state.log.replication.factor", "1")
              .setConfigProp("transaction.state.log.min.isr", "1")
              .setConfigProp("share.coordinator.state.topic.replication.factor", "1")
              .setConfigProp("share.coordinator.state.topic.min.isr", "1")
              // Tests start consumers one after another; waiting for more members only slows them.
              .setConfigProp("group.initial.rebalance.delay.ms", "0")
              .build();
      cluster.format();
      cluster.startup();
      cluster.waitForReadyBrokers();
      return new EmbeddedKafkaBroker(cluster);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      closeQuietly(cluster);
      throw new InfraStartupException("interrupted while starting the embedded Kafka broker", e);
    } catch (Exception e) {
      closeQuietly(cluster);
      throw new InfraStartupException(
          "the embedded Kafka broker (KRaft, Kafka "
              + AppInfoParser.getVersion()
              + ") failed to start: "
              + Failures.describe(e),
          e);
    }
  }

  @Override
  public String bootstrapServers() {
    return bootstrapServers;
  }

  @Override
  public String describe() {
    return "embedded Kafka "
        + AppInfoParser.getVersion()
        + " (KRaft, combined node) at "
        + bootstrapServers;
  }

  @Override
  protected void stop() {
    closeQuietly(cluster);
  }

  private static void closeQuietly(KafkaClusterTestKit cluster) {
    if (cluster == null) {
      return;
    }
    try {
      cluster.close();
    } catch (Exception e) {
      // Stopping happens at JVM exit or after a failed start; the original error matters more.
      org.slf4j.LoggerFactory.getLogger(EmbeddedKafkaBroker.class)
          .warn("embedded Kafka did not stop cleanly: {}", e.toString());
    }
  }
}
