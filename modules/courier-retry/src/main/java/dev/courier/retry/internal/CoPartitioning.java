package dev.courier.retry.internal;

import dev.courier.retry.RetryConfig;
import java.util.Arrays;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.common.config.ConfigException;

/** The assignor key order needs, checked with the rest of {@link RetryConfig} at start. */
public final class CoPartitioning {

  private CoPartitioning() {}

  /**
   * Key order needs a partition of the main topic and the same partition of every tier on one
   * member, so the record that fails and the records waiting behind it are settled by the same
   * member: the range assignors give that to topics with one partition count, the sticky and
   * uniform ones do not.
   */
  public static void require(Map<String, Object> consumer) {
    String protocol = String.valueOf(consumer.getOrDefault("group.protocol", "classic")).trim();
    if (protocol.equalsIgnoreCase("consumer")) {
      Object remote = consumer.get("group.remote.assignor");
      if (remote != null && !String.valueOf(remote).trim().equalsIgnoreCase("range")) {
        throw new ConfigException(
            "kafka.group.remote.assignor",
            remote,
            "must be 'range' with "
                + RetryConfig.ORDERING
                + "=key (the tiers' partitions must stay with the"
                + " main topic's)");
      }
      return;
    }
    Object strategy = consumer.get(ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG);
    if (strategy != null) {
      // Every member must offer only the range assignor, or the group may settle on another.
      boolean onlyRange =
          Arrays.stream(String.valueOf(strategy).replaceAll("[\\[\\]]|class ", "").split(","))
              .map(String::trim)
              .filter(v -> !v.isEmpty())
              .allMatch(v -> v.endsWith(".RangeAssignor"));
      if (!onlyRange) {
        throw new ConfigException(
            "kafka." + ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG,
            strategy,
            "must be org.apache.kafka.clients.consumer.RangeAssignor with "
                + RetryConfig.ORDERING
                + "=key (the tiers' partitions must stay with the main topic's)");
      }
    }
  }
}
