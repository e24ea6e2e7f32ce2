package dev.courier.core;

import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.common.config.AbstractConfig;

/**
 * Kafka client settings of a Courier component: everything configured with the prefix {@code
 * kafka.} (security, timeouts, {@code group.instance.id}) plus the bootstrap servers.
 */
public final class ClientSettings {

  /** The prefix that passes a setting through to Courier's Kafka clients. */
  public static final String PREFIX = "kafka.";

  private ClientSettings() {}

  public static Map<String, Object> of(AbstractConfig config, String bootstrapServers) {
    Map<String, Object> settings = new HashMap<>(config.originalsWithPrefix(PREFIX));
    settings.put("bootstrap.servers", bootstrapServers);
    return settings;
  }
}
