package dev.courier.core;

import dev.courier.core.internal.DistinctList;
import dev.courier.core.internal.Failures;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.clients.ClientUtils;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.network.ChannelBuilder;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.utils.LogContext;
import org.apache.kafka.common.utils.Time;

/**
 * The Kafka client settings of every Courier configuration, defined once: {@code bootstrap.servers}
 * plus anything with the prefix {@code kafka.} (security, timeouts, {@code group.instance.id}),
 * which passes to each Kafka client that knows the key, as it is, without the prefix.
 *
 * <p>{@link #of(AbstractConfig)} checks them at start the way Kafka's clients would, so a typo or a
 * bad value fails there naming the key ({@code kafka.security.protocol}), not later as "Failed to
 * construct kafka producer" or as a setting silently dropped.
 */
public final class ClientSettings {

  public static final String BOOTSTRAP_SERVERS = "bootstrap.servers";

  /** The prefix that passes a setting through to Courier's Kafka clients. */
  public static final String PREFIX = "kafka.";

  private static final Pattern CONFIG_NAME =
      Pattern.compile("(for configuration |configuration )(\\S+?)([:.]?\\s|$)");

  private final List<String> bootstrapServers;
  private final Map<String, Object> passThrough;

  private ClientSettings(List<String> bootstrapServers, Map<String, Object> passThrough) {
    this.bootstrapServers = List.copyOf(bootstrapServers);
    this.passThrough = Map.copyOf(passThrough);
  }

  /** Declares {@value #BOOTSTRAP_SERVERS} in a definition; every Courier configuration has it. */
  public static ConfigDef define(ConfigDef definition) {
    return definition.define(
        BOOTSTRAP_SERVERS,
        Type.LIST,
        ConfigDef.NO_DEFAULT_VALUE,
        new DistinctList(),
        Importance.HIGH,
        "Kafka brokers to connect to (host:port,...). Any other Kafka client setting passes with"
            + " the prefix '"
            + PREFIX
            + "' (kafka.security.protocol, kafka.sasl.jaas.config, kafka.ssl.truststore.location,"
            + " ...) to every Kafka client of the component that takes it.");
  }

  /**
   * The client settings of a parsed configuration that {@link #define declared} {@value
   * #BOOTSTRAP_SERVERS}, checked like the clients would check them.
   *
   * @throws ConfigException naming the {@code kafka.}-prefixed key that is unknown to every Kafka
   *     client, has a bad value, or cannot make a client (a missing JAAS entry, an unreadable
   *     keystore)
   */
  public static ClientSettings of(AbstractConfig config) {
    Map<String, Object> passThrough = new HashMap<>(config.originalsWithPrefix(PREFIX));
    passThrough.remove(BOOTSTRAP_SERVERS); // kafka.bootstrap.servers would shadow the real key
    ClientSettings settings = new ClientSettings(config.getList(BOOTSTRAP_SERVERS), passThrough);
    settings.check();
    return settings;
  }

  public List<String> bootstrapServers() {
    return bootstrapServers;
  }

  /** {@value #BOOTSTRAP_SERVERS} as one comma-separated value. */
  public String bootstrapServersValue() {
    return String.join(",", bootstrapServers);
  }

  /** Every setting, for a component that hands them on (e.g. Debezium's offset store). */
  public Map<String, Object> all() {
    Map<String, Object> all = new HashMap<>(passThrough);
    all.put(BOOTSTRAP_SERVERS, bootstrapServersValue());
    return all;
  }

  /**
   * The settings as every Courier component takes them: {@code bootstrap.servers} and each other
   * key with the prefix {@code kafka.} (a new, mutable map).
   */
  public Map<String, Object> asSettings() {
    Map<String, Object> settings = new HashMap<>();
    passThrough.forEach((k, v) -> settings.put(PREFIX + k, v));
    settings.put(BOOTSTRAP_SERVERS, bootstrapServersValue());
    return settings;
  }

  /** The settings a producer takes. */
  public Map<String, Object> producer() {
    return only(ProducerConfig.configNames());
  }

  /** The settings a consumer takes. */
  public Map<String, Object> consumer() {
    return only(ConsumerConfig.configNames());
  }

  /** The settings an Admin client takes. */
  public Map<String, Object> admin() {
    return only(AdminClientConfig.configNames());
  }

  private Map<String, Object> only(Set<String> known) {
    Map<String, Object> settings = new HashMap<>();
    passThrough.forEach(
        (k, v) -> {
          if (known.contains(k)) {
            settings.put(k, v);
          }
        });
    settings.put(BOOTSTRAP_SERVERS, bootstrapServersValue());
    return settings;
  }

  private void check() {
    Set<String> unknown = new TreeSet<>();
    for (String key : passThrough.keySet()) {
      if (!ProducerConfig.configNames().contains(key)
          && !ConsumerConfig.configNames().contains(key)
          && !AdminClientConfig.configNames().contains(key)) {
        unknown.add(PREFIX + key);
      }
    }
    if (!unknown.isEmpty()) {
      throw new ConfigException(
          "Unknown configuration "
              + unknown
              + ": no Kafka client (producer, consumer or admin) takes "
              + (unknown.size() == 1 ? "it" : "them")
              + " (check the spelling against Kafka's client configuration reference)");
    }
    AdminClientConfig admin;
    try {
      admin = new AdminClientConfig(admin());
      Map<String, Object> producer = producer();
      producer.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
      producer.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
      new ProducerConfig(producer);
      Map<String, Object> consumer = consumer();
      consumer.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
      consumer.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
      new ConsumerConfig(consumer);
    } catch (ConfigException e) {
      throw prefixed(e);
    }
    // Security settings are only used when a client opens its channel (JAAS login modules,
    // keystores): build that channel once here, without connecting, so they fail at start too.
    try {
      ChannelBuilder channel =
          ClientUtils.createChannelBuilder(admin, Time.SYSTEM, new LogContext("[courier] "));
      channel.close();
    } catch (KafkaException | IllegalArgumentException e) {
      throw new ConfigException(
          "Invalid Kafka security settings (kafka.security.protocol, kafka.sasl.*, kafka.ssl.*):"
              + " "
              + Failures.describe(e));
    }
  }

  /** Kafka names the key without Courier's prefix; the operator wrote it with it. */
  static ConfigException prefixed(ConfigException e) {
    String message = String.valueOf(e.getMessage());
    Matcher m = CONFIG_NAME.matcher(message);
    if (m.find() && !m.group(2).equals(BOOTSTRAP_SERVERS)) {
      message =
          message.substring(0, m.start(2)) + PREFIX + m.group(2) + message.substring(m.end(2));
    }
    return new ConfigException(message);
  }
}
