package dev.courier.idempotency;

import dev.courier.core.ClientSettings;
import dev.courier.core.RenamedKey;
import dev.courier.core.internal.RenamedKeys;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Range;
import org.apache.kafka.common.config.ConfigDef.Type;

/**
 * Settings of an {@link IdempotentConsumer}: the Kafka client settings every Courier component
 * takes ({@code bootstrap.servers} and {@code kafka.*}), the group, and the poll timeout.
 */
public final class IdempotentConsumerConfig extends AbstractConfig {

  public static final String BOOTSTRAP_SERVERS = ClientSettings.BOOTSTRAP_SERVERS;
  public static final String GROUP_ID = "idempotency.group.id";
  public static final String POLL_TIMEOUT_MS = "idempotency.poll.timeout.ms";

  private static final ConfigDef CONFIG =
      ClientSettings.define(new ConfigDef())
          .define(
              GROUP_ID,
              Type.STRING,
              null,
              Importance.HIGH,
              "The consumer group to join; by default the handler's idempotency.consumer.name.")
          .define(
              POLL_TIMEOUT_MS,
              Type.LONG,
              500L,
              Range.atLeast(1),
              Importance.LOW,
              "Longest poll while no batch is in the database.");

  /**
   * Raw Kafka consumer keys, which this consumer took before it took Courier's client settings:
   * {@code group.id} is now {@value #GROUP_ID}, and any other is {@code kafka.<key>}.
   */
  private static final List<RenamedKey> RENAMED = renamed();

  private final ClientSettings clients;

  public IdempotentConsumerConfig(Map<String, ?> originals) {
    super(CONFIG, RenamedKeys.apply(originals, RENAMED), false);
    this.clients = ClientSettings.of(this);
  }

  private static List<RenamedKey> renamed() {
    List<RenamedKey> renamed = new ArrayList<>();
    renamed.add(RenamedKey.renamed(ConsumerConfig.GROUP_ID_CONFIG, GROUP_ID));
    for (String key : ConsumerConfig.configNames()) {
      if (!key.equals(ConsumerConfig.GROUP_ID_CONFIG)
          && !key.equals(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG)) {
        renamed.add(RenamedKey.renamed(key, ClientSettings.PREFIX + key));
      }
    }
    return List.copyOf(renamed);
  }

  /** Names this configuration still accepts under their old spelling. */
  public static List<RenamedKey> renamedKeys() {
    return RENAMED;
  }

  public static ConfigDef configDef() {
    return new ConfigDef(CONFIG);
  }

  /** The Kafka client settings ({@code bootstrap.servers} and {@code kafka.*}), checked. */
  public ClientSettings clients() {
    return clients;
  }

  /** The group to join, or null to take the handler's. */
  public String groupId() {
    return getString(GROUP_ID);
  }

  public Duration pollTimeout() {
    return Duration.ofMillis(getLong(POLL_TIMEOUT_MS));
  }
}
