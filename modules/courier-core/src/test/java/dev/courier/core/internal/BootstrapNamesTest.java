package dev.courier.core.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.courier.core.ClientSettings;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.junit.jupiter.api.Test;

class BootstrapNamesTest {

  @Test
  void noneResolvingIsAnOutageThatNamesEveryAddress() {
    assertThat(BootstrapNames.unresolved(List.of("kafka-0:9092", " kafka-1:9092"), h -> false))
        .hasValueSatisfying(
            reason ->
                assertThat(reason)
                    .contains("bootstrap.servers")
                    .contains("kafka-0:9092, kafka-1:9092")
                    .contains("waiting"));
  }

  @Test
  void oneResolvingIsEnoughAsForKafkasClients() {
    Set<String> known = Set.of("kafka-1");
    assertThat(BootstrapNames.unresolved(List.of("kafka-0:9092", "kafka-1:9092"), known::contains))
        .isEmpty();
  }

  @Test
  void aMalformedAddressIsLeftToKafkasOwnRefusal() {
    assertThat(BootstrapNames.unresolved(List.of("kafka-0"), h -> false)).isEmpty();
  }

  @Test
  void aNameThatDoesNotExistIsFoundOut() {
    assertThat(BootstrapNames.unresolved(clients("courier-no-such-host.invalid:9092"))).isPresent();
    assertThat(BootstrapNames.unresolved(clients("localhost:9092"))).isEmpty();
  }

  private static ClientSettings clients(String bootstrapServers) {
    return ClientSettings.of(
        new AbstractConfig(
            ClientSettings.define(new ConfigDef()),
            Map.of(ClientSettings.BOOTSTRAP_SERVERS, bootstrapServers)));
  }
}
