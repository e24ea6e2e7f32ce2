package dev.courier.retry;

import java.util.HashMap;
import java.util.Map;

/** A ladder's settings for the broker-fault tests: two attempts, 200 ms apart. */
final class LadderTestSettings {

  private LadderTestSettings() {}

  /** A broker's client settings in Courier's form (kafka.-prefixed but bootstrap.servers). */
  static Map<String, Object> prefixed(Map<String, String> clients) {
    Map<String, Object> settings = new HashMap<>();
    clients.forEach((k, v) -> settings.put(k.equals("bootstrap.servers") ? k : "kafka." + k, v));
    return settings;
  }

  static Map<String, Object> of(Map<String, Object> clients, String topic, String group) {
    Map<String, Object> settings = new HashMap<>(clients);
    settings.put(RetryConfig.GROUP_ID, group);
    settings.put(RetryConfig.TOPIC, topic);
    settings.put(RetryConfig.MAX_ATTEMPTS, 2);
    settings.put(RetryConfig.BACKOFF_TYPE, "fixed");
    settings.put(RetryConfig.BACKOFF_INITIAL_MS, 200);
    settings.put(RetryConfig.BACKOFF_MAX_MS, 200);
    return settings;
  }
}
