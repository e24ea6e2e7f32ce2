package dev.courier.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigException;
import org.junit.jupiter.api.Test;

class ClientSettingsTest {

  private static final String JAAS =
      "org.apache.kafka.common.security.plain.PlainLoginModule required username=\"u\""
          + " password=\"p\";";

  private static ClientSettings settings(Map<String, Object> values) {
    Map<String, Object> all = new HashMap<>(values);
    all.putIfAbsent("bootstrap.servers", "k1:9092,k2:9092");
    return ClientSettings.of(new AbstractConfig(ClientSettings.define(new ConfigDef()), all));
  }

  @Test
  void everyPrefixedSettingReachesEachClientThatTakesIt() {
    ClientSettings s =
        settings(
            Map.of(
                "kafka.security.protocol", "SASL_SSL",
                "kafka.sasl.mechanism", "PLAIN",
                "kafka.sasl.jaas.config", JAAS,
                "kafka.group.instance.id", "worker-1",
                "kafka.linger.ms", "7"));
    for (Map<String, Object> client : new Map[] {s.producer(), s.consumer(), s.admin()}) {
      assertThat(client)
          .containsEntry("bootstrap.servers", "k1:9092,k2:9092")
          .containsEntry("security.protocol", "SASL_SSL")
          .containsEntry("sasl.jaas.config", JAAS);
    }
    assertThat(s.consumer()).containsEntry("group.instance.id", "worker-1");
    assertThat(s.producer()).doesNotContainKey("group.instance.id").containsEntry("linger.ms", "7");
    assertThat(s.admin()).doesNotContainKey("linger.ms");
    assertThat(s.all()).containsEntry("group.instance.id", "worker-1");
  }

  @Test
  void aBadValueFailsNamingThePrefixedKey() {
    assertThatThrownBy(() -> settings(Map.of("kafka.security.protocol", "BOGUS")))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("kafka.security.protocol")
        .hasMessageContaining("BOGUS");
  }

  @Test
  void aKeyNoKafkaClientTakesIsRefused() {
    assertThatThrownBy(() -> settings(Map.of("kafka.securty.protocol", "SSL")))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("kafka.securty.protocol");
  }

  @Test
  void securitySettingsThatCannotMakeAClientFailAtStart() {
    assertThatThrownBy(() -> settings(Map.of("kafka.security.protocol", "SASL_PLAINTEXT")))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("kafka.security.protocol")
        .hasMessageContaining("JAAS");
    assertThatThrownBy(
            () ->
                settings(
                    Map.of(
                        "kafka.security.protocol", "SSL",
                        "kafka.ssl.truststore.location", "/nonexistent/truststore.jks",
                        "kafka.ssl.truststore.password", "x")))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("truststore");
  }

  @Test
  void bootstrapServersAreRequired() {
    assertThatThrownBy(() -> new AbstractConfig(ClientSettings.define(new ConfigDef()), Map.of()))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("bootstrap.servers");
  }
}
