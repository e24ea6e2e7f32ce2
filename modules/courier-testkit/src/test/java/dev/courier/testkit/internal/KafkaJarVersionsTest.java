package dev.courier.testkit.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.courier.testkit.InfraStartupException;
import java.util.Map;
import org.apache.kafka.common.utils.AppInfoParser;
import org.junit.jupiter.api.Test;

class KafkaJarVersionsTest {

  @Test
  void thisBuildsClasspathHasOneKafkaVersionTheClientsOne() {
    Map<String, String> versions = KafkaJarVersions.on(getClass().getClassLoader());
    assertThat(versions).containsKey("kafka-clients").containsKey("kafka-server");
    assertThat(versions.values()).containsOnly(AppInfoParser.getVersion());
    KafkaJarVersions.requireOne(versions);
  }

  /** What a Spring Boot 4.0 build without glue had: Boot's 4.1.2 beside the testkit's 4.3.1. */
  @Test
  void mixedVersionsAreRefusedNamingEachAndTheFix() {
    Map<String, String> mixed =
        Map.of(
            "kafka-clients", "4.1.2",
            "kafka_2.13", "4.1.2",
            "kafka-group-coordinator", "4.3.1",
            "kafka-share-coordinator", "4.3.1");
    assertThatThrownBy(() -> KafkaJarVersions.requireOne(mixed))
        .isInstanceOf(InfraStartupException.class)
        .hasMessageContaining("4.1.2: [kafka-clients, kafka_2.13]")
        .hasMessageContaining("4.3.1: [kafka-group-coordinator, kafka-share-coordinator]")
        .hasMessageContaining("set <kafka.version>4.3.1</kafka.version>");
  }
}
