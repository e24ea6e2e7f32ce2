package dev.courier.spring.internal;

import dev.courier.core.ClientSettings;
import dev.courier.spring.CourierPropertyException;
import java.net.URI;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigException;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.EnumerablePropertySource;
import org.springframework.core.env.Environment;
import org.springframework.core.env.PropertySource;
import org.springframework.core.env.StandardEnvironment;

/**
 * Courier's settings in a Spring application: every property under {@code courier.}, without the
 * prefix, exactly the keys of docs/configuration.md. Spring's own Kafka and DataSource settings
 * fill what the user did not set under {@code courier.}, so an application configures Kafka and
 * PostgreSQL once.
 *
 * <p>Read once, at start; {@link #check} refuses a key no Courier definition declares and a value
 * its definition does not allow, naming the property with its {@code courier.} prefix, as the
 * services refuse a bad setting.
 */
public final class CourierSettings {

  public static final String PREFIX = "courier.";

  /** A switch of the Spring integration, not of a ConfigDef (key without {@code courier.}). */
  public record Switch(String key, boolean defaultValue, String description) {}

  public static final List<Switch> SWITCHES =
      List.of(
          new Switch(
              "outbox.enabled",
              true,
              "Whether the starter configures the outbox (OutboxWriter and TransactionalOutbox)."),
          new Switch(
              "outbox.schema.migrate",
              true,
              "Whether the application creates and upgrades the outbox tables at start, as the"
                  + " relay does (off when a migration tool owns the schema)."),
          new Switch(
              "outbox.relay.enabled",
              false,
              "Whether the outbox relay runs inside the application, with the leadership and"
                  + " fencing of 'courier relay' (of several replicas one streams). Off by"
                  + " default: the separate relay service is the production default."),
          new Switch(
              "retry.enabled",
              true,
              "Whether the starter configures Courier's retry ladder for @KafkaListener methods"
                  + " (the container factory courierRetryContainerFactory)."),
          new Switch(
              "monitor.enabled",
              false,
              "Whether the backpressure monitor runs inside the application over"
                  + " courier.monitor.groups, with its health and the /actuator/courier endpoint."
                  + " Off by default: the 'courier monitor' service watches every group."),
          new Switch(
              "idempotency.enabled",
              true,
              "Whether the starter configures the idempotent store for listeners"
                  + " (TransactionalIdempotency)."));

  private final Map<String, String> courier;
  private final Map<String, Object> springKafka;
  private final Map<String, Object> springDatabase;

  public CourierSettings(
      Map<String, String> courier,
      Map<String, Object> springKafka,
      Map<String, Object> springDatabase) {
    this.courier = Map.copyOf(courier);
    this.springKafka = Map.copyOf(springKafka);
    this.springDatabase = Map.copyOf(springDatabase);
  }

  /** The {@code courier.*} properties of an environment, keys without the prefix. */
  public static Map<String, String> courierProperties(Environment environment) {
    return Binder.get(environment)
        .bind("courier", Bindable.mapOf(String.class, String.class))
        .orElse(Map.of());
  }

  /**
   * The {@code courier.} keys (without the prefix) the application's own configuration sets: its
   * files and property sources, not the JVM's system properties or the process's environment, where
   * other tools share the name space (the testkit reads {@code courier.infra}).
   */
  public static Set<String> applicationKeys(Environment environment) {
    Set<String> keys = new TreeSet<>();
    if (!(environment instanceof ConfigurableEnvironment configurable)) {
      return keys;
    }
    for (PropertySource<?> source : configurable.getPropertySources()) {
      if (source instanceof EnumerablePropertySource<?> enumerable
          && !NOT_CHECKED.contains(source.getName())) {
        for (String name : enumerable.getPropertyNames()) {
          if (name.startsWith(PREFIX)) {
            keys.add(name.substring(PREFIX.length()));
          }
        }
      }
    }
    return keys;
  }

  private static final Set<String> NOT_CHECKED =
      Set.of(
          StandardEnvironment.SYSTEM_PROPERTIES_PROPERTY_SOURCE_NAME,
          StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME,
          "configurationProperties");

  /**
   * Spring's Kafka client settings as Courier takes them: {@code bootstrap.servers}, and every
   * other client setting with the prefix {@code kafka.}.
   */
  public static Map<String, Object> kafkaSettings(
      List<String> bootstrapServers, Map<String, Object> clientProperties) {
    Map<String, Object> settings = new HashMap<>();
    clientProperties.forEach(
        (key, value) -> {
          if (!key.equals(ClientSettings.BOOTSTRAP_SERVERS) && value != null) {
            settings.put(ClientSettings.PREFIX + key, value);
          }
        });
    if (bootstrapServers != null && !bootstrapServers.isEmpty()) {
      settings.put(ClientSettings.BOOTSTRAP_SERVERS, String.join(",", bootstrapServers));
    }
    return settings;
  }

  /**
   * A PostgreSQL JDBC URL and its credentials as the relay's {@code database.*} settings.
   *
   * @return no settings when the URL is not PostgreSQL's (the relay then needs its own)
   */
  public static Map<String, Object> databaseSettings(String jdbcUrl, String user, String password) {
    Map<String, Object> settings = new HashMap<>();
    if (jdbcUrl == null || !jdbcUrl.startsWith("jdbc:postgresql://")) {
      return settings;
    }
    URI uri = URI.create(jdbcUrl.substring("jdbc:".length()));
    settings.put("database.hostname", uri.getHost());
    settings.put("database.port", String.valueOf(uri.getPort() < 0 ? 5432 : uri.getPort()));
    String path = uri.getPath();
    if (path != null && path.length() > 1) {
      settings.put("database.dbname", path.substring(1));
    }
    String query = uri.getQuery();
    if (query != null) {
      for (String parameter : query.split("&")) {
        if (parameter.startsWith("sslmode=")) {
          settings.put("database.sslmode", parameter.substring("sslmode=".length()));
        }
      }
    }
    if (user != null) {
      settings.put("database.user", user);
    }
    if (password != null) {
      settings.put("database.password", password);
    }
    return settings;
  }

  /**
   * The settings of one component: Spring's Kafka settings (and its database's, when asked), then
   * every {@code courier.} key the component's definition declares or that passes to Kafka ({@code
   * kafka.*}), which win.
   */
  public Map<String, Object> forComponent(ConfigDef definition, boolean database) {
    Map<String, Object> settings = new HashMap<>(springKafka);
    if (database) {
      settings.putAll(springDatabase);
    }
    Set<String> names = definition.names();
    courier.forEach(
        (key, value) -> {
          if (names.contains(key) || key.startsWith(ClientSettings.PREFIX)) {
            settings.put(key, value);
          }
        });
    return settings;
  }

  /**
   * One setting of a definition, parsed and checked by it: the {@code courier.} value, or the
   * definition's default.
   *
   * @throws CourierPropertyException naming the property, prefix included, when the value is not
   *     valid
   */
  public Object value(ConfigDef definition, String key) {
    ConfigDef.ConfigKey declared = definition.configKeys().get(key);
    String raw = courier.get(key);
    return raw == null ? declared.defaultValue : parsed(declared, raw);
  }

  /**
   * Checks every {@code courier.} key the application sets ({@link #applicationKeys}) at start,
   * whichever of Courier's parts it uses: a key that none of the definitions declares and that is
   * neither a Kafka client setting nor one of the {@link #SWITCHES} is refused, with the nearest
   * known key; a declared key's value is parsed and validated by each definition declaring it.
   *
   * @throws CourierPropertyException naming the first bad property as written, prefix included
   */
  public void check(Set<String> keys, Collection<ConfigDef> definitions) {
    Map<String, List<ConfigDef.ConfigKey>> declared = new TreeMap<>();
    definitions.forEach(
        d ->
            d.configKeys()
                .forEach((k, v) -> declared.computeIfAbsent(k, x -> new ArrayList<>()).add(v)));
    Set<String> switches = new TreeSet<>();
    SWITCHES.forEach(s -> switches.add(s.key()));
    for (String key : new TreeSet<>(keys)) {
      if (key.startsWith(ClientSettings.PREFIX)) {
        continue; // Kafka's client checks its own settings when it is created
      }
      String raw = courier.get(key);
      if (switches.contains(key)) {
        if (raw != null && !raw.equalsIgnoreCase("true") && !raw.equalsIgnoreCase("false")) {
          throw new CourierPropertyException(PREFIX + key, raw, "not a boolean", "true or false");
        }
        continue;
      }
      List<ConfigDef.ConfigKey> by = declared.get(key);
      if (by == null) {
        Set<String> known = new TreeSet<>(declared.keySet());
        known.addAll(switches);
        throw new CourierPropertyException(
            PREFIX + key,
            looksSecret(key) ? null : raw,
            "no such Courier setting",
            Nearest.of(key, known).map(k -> "did you mean " + PREFIX + k + "?").orElse(null));
      }
      if (raw != null) {
        by.forEach(k -> parsed(k, raw));
      }
    }
  }

  /**
   * A mistyped key cannot say its type: one named like a secret ({@code courier.database.pasword})
   * keeps its value out of the error.
   */
  static boolean looksSecret(String key) {
    String k = key.toLowerCase(java.util.Locale.ROOT);
    return k.contains("password")
        || k.contains("pasword")
        || k.contains("secret")
        || k.contains("token")
        || k.contains("credential")
        || k.contains("jaas");
  }

  private static Object parsed(ConfigDef.ConfigKey declared, String raw) {
    String shown = declared.type == ConfigDef.Type.PASSWORD ? null : raw;
    try {
      Object parsed = ConfigDef.parseType(declared.name, raw, declared.type);
      if (declared.validator != null) {
        declared.validator.ensureValid(declared.name, parsed);
      }
      return parsed;
    } catch (ConfigException e) {
      throw new CourierPropertyException(
          PREFIX + declared.name, shown, problem(e, declared.name), allowed(declared));
    }
  }

  /** Kafka's message without its "Invalid value X for configuration K:" opening. */
  private static String problem(ConfigException e, String key) {
    String message = String.valueOf(e.getMessage());
    String opening = "for configuration " + key;
    int at = message.indexOf(opening);
    String rest = at < 0 ? message : message.substring(at + opening.length());
    rest = rest.startsWith(":") ? rest.substring(1).trim() : rest.trim();
    return rest.isEmpty() ? "not a valid value" : rest;
  }

  /** What a setting takes: its type, the validator's range or list, its default. */
  static String allowed(ConfigDef.ConfigKey declared) {
    StringBuilder out = new StringBuilder("takes ");
    out.append(declared.type.name().toLowerCase(java.util.Locale.ROOT));
    if (declared.validator != null) {
      out.append(" ").append(declared.validator);
    }
    if (declared.hasDefault() && declared.type != ConfigDef.Type.PASSWORD) {
      out.append("; default ").append(declared.defaultValue);
    }
    return out.toString();
  }
}
