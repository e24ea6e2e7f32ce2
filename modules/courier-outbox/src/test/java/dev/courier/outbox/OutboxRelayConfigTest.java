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
        .containsEntry(OutboxRelayConfig.SLOT_NAME, "shop_orders_v2_slot")
        .containsEntry(OutboxRelayConfig.PUBLICATION_NAME, "shop_orders_v2_pub")
        .containsEntry(OutboxRelayConfig.TOPIC_PREFIX, "Shop-orders.v2");
    new OutboxRelayConfig(settings);
    assertThat(settings("x".repeat(100)).get(OutboxRelayConfig.SLOT_NAME)).hasSize(63);
  }

  @Test
  void anIllegalSlotNameIsRefusedAtStartNamingTheKey() {
    for (String slot : new String[] {"shop-1_slot", "Upper", "", "s".repeat(64), "é"}) {
      Map<String, String> settings = new HashMap<>(settings("shop"));
      settings.put(OutboxRelayConfig.SLOT_NAME, slot);
      assertThatThrownBy(() -> new OutboxRelayConfig(settings))
          .as(slot)
          .isInstanceOf(ConfigException.class)
          .hasMessageContaining(OutboxRelayConfig.SLOT_NAME);
    }
  }

  @Test
  void aShardsRelayGetsItsOwnSlotPublicationOffsetsAndNameButTheSameTopics() {
    Map<String, String> settings = new HashMap<>(settings("shop"));
    settings.put(OutboxRelayConfig.SHARD_COUNT, "2");
    settings.put(OutboxRelayConfig.SHARD_INDEX, "1");
    OutboxRelayConfig config = new OutboxRelayConfig(settings);
    assertThat(config.getString(OutboxRelayConfig.SLOT_NAME)).isEqualTo("shop_slot_1");
    assertThat(config.getString(OutboxRelayConfig.PUBLICATION_NAME)).isEqualTo("shop_pub_1");
    assertThat(config.getString(OutboxRelayConfig.OFFSET_STORAGE_TOPIC))
        .isEqualTo("shop.offsets_1");
    assertThat(config.getString(OutboxRelayConfig.RELAY_NAME)).isEqualTo("shop-relay_1");
    assertThat(config.prefix()).isEqualTo("shop");
    assertThat(config.table()).isEqualTo("courier_outbox_1");
    assertThat(new OutboxRelayConfig(settings("shop")).table()).isEqualTo("courier_outbox");
  }

  @Test
  void aQueueNoLargerThanABatchIsRefusedNamingTheKey() {
    Map<String, String> settings = new HashMap<>(settings("shop"));
    settings.put(OutboxRelayConfig.MAX_BATCH_SIZE, "4096");
    settings.put(OutboxRelayConfig.MAX_QUEUE_SIZE, "4096");
    assertThatThrownBy(() -> new OutboxRelayConfig(settings))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining(OutboxRelayConfig.MAX_QUEUE_SIZE)
        .hasMessageContaining(OutboxRelayConfig.MAX_BATCH_SIZE + "=4096");
    settings.put(OutboxRelayConfig.MAX_QUEUE_SIZE, "16384");
    assertThat(new OutboxRelayConfig(settings).getInt(OutboxRelayConfig.MAX_QUEUE_SIZE))
        .isEqualTo(16384);
  }

  @Test
  void aShardIndexOutsideTheCountIsRefusedNamingTheKey() {
    Map<String, String> settings = new HashMap<>(settings("shop"));
    settings.put(OutboxRelayConfig.SHARD_COUNT, "2");
    settings.put(OutboxRelayConfig.SHARD_INDEX, "2");
    assertThatThrownBy(() -> new OutboxRelayConfig(settings))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining(OutboxRelayConfig.SHARD_INDEX)
        .hasMessageContaining("below outbox.shard.count=2");
    settings.put(OutboxRelayConfig.SHARD_COUNT, "none");
    assertThatThrownBy(() -> new OutboxRelayConfig(settings))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining(OutboxRelayConfig.SHARD_COUNT);
  }
}
