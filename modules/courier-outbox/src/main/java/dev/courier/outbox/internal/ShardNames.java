package dev.courier.outbox.internal;

import dev.courier.outbox.OutboxRelayConfig;
import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigException;

/**
 * The settings a shard's relay runs with: with more than one shard, the names that must differ
 * between the shards' relays (slot, publication, offset topic, relay name) get the shard's suffix;
 * the topics events go to do not.
 */
public final class ShardNames {

  private ShardNames() {}

  public static Map<String, Object> apply(Map<String, ?> originals, Map<String, Object> defaults) {
    Map<String, Object> settings = new HashMap<>(originals);
    ConfigDef def =
        new ConfigDef()
            .define(OutboxRelayConfig.SHARD_COUNT, Type.INT, 1, Importance.LOW, "")
            .define(OutboxRelayConfig.SHARD_INDEX, Type.INT, 0, Importance.LOW, "");
    Map<String, Object> shard;
    try {
      Map<String, Object> given = new HashMap<>();
      Object count = originals.get(OutboxRelayConfig.SHARD_COUNT);
      Object index = originals.get(OutboxRelayConfig.SHARD_INDEX);
      given.put(OutboxRelayConfig.SHARD_COUNT, count != null ? count : 1);
      given.put(OutboxRelayConfig.SHARD_INDEX, index != null ? index : 0);
      shard = def.parse(given);
    } catch (ConfigException e) {
      return settings; // the full parse names the bad value
    }
    int count = (Integer) shard.get(OutboxRelayConfig.SHARD_COUNT);
    int index = (Integer) shard.get(OutboxRelayConfig.SHARD_INDEX);
    if (count > 1) {
      for (String key :
          new String[] {
            OutboxRelayConfig.SLOT_NAME,
            OutboxRelayConfig.PUBLICATION_NAME,
            OutboxRelayConfig.OFFSET_STORAGE_TOPIC,
            OutboxRelayConfig.RELAY_NAME
          }) {
        Object base = settings.containsKey(key) ? settings.get(key) : defaults.get(key);
        if (base != null) {
          settings.put(key, base + "_" + index);
        }
      }
    }
    return settings;
  }
}
