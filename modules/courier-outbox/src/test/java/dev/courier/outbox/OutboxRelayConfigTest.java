package dev.courier.outbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.common.config.ConfigException;
import org.junit.jupiter.api.Test;

class OutboxRelayConfigTest {

  private static Map<String, String> settings(String prefix) {
    return OutboxRelayConfig.settings(
        "localhost:9092", "jdbc:postgresql://db:5432/app", "app", "secret", prefix);
  }

  @Test
  void aPrefixWithCharactersASlotNameRefusesGivesLegalSlotAndPublicationNames() {
    Map<String, String> settings = settings("Shop-orders.v2");
    assertThat(settings)
        .containsEntry(OutboxRelayConfig.SLOT, "shop_orders_v2_slot")
        .containsEntry(OutboxRelayConfig.PUBLICATION, "shop_orders_v2_pub")
        .containsEntry(OutboxRelayConfig.TOPIC_PREFIX, "Shop-orders.v2");
    new OutboxRelayConfig(settings);
    assertThat(settings("x".repeat(100)).get(OutboxRelayConfig.SLOT)).hasSize(63);
  }

  @Test
  void anIllegalSlotNameIsRefusedAtStartNamingTheKey() {
    for (String slot : new String[] {"shop-1_slot", "Upper", "", "s".repeat(64), "é"}) {
      Map<String, String> settings = new HashMap<>(settings("shop"));
      settings.put(OutboxRelayConfig.SLOT, slot);
      assertThatThrownBy(() -> new OutboxRelayConfig(settings))
          .as(slot)
          .isInstanceOf(ConfigException.class)
          .hasMessageContaining(OutboxRelayConfig.SLOT);
    }
  }
}
