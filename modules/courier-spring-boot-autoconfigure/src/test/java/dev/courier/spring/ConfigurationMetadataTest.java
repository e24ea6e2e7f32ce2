package dev.courier.spring;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.courier.spring.internal.CourierSettings;
import dev.courier.spring.internal.KnownDefinitions;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.types.Password;
import org.junit.jupiter.api.Test;

/**
 * META-INF/spring-configuration-metadata.json is what the ConfigDefs say, key for key, so an IDE
 * completes and documents every {@code courier.} property and the two cannot drift. With {@code
 * -Dcourier.docs.write=true} the file is written first.
 */
class ConfigurationMetadataTest {

  private static final Path FILE =
      Path.of("src", "main", "resources", "META-INF", "spring-configuration-metadata.json");

  @Test
  void theMetadataIsWhatTheDefinitionsSay() throws Exception {
    String generated = generate();
    if (Boolean.getBoolean("courier.docs.write")) {
      Files.writeString(FILE, generated, StandardCharsets.UTF_8);
    }
    assertThat(FILE).exists();
    assertThat(Files.readString(FILE, StandardCharsets.UTF_8))
        .as(
            FILE
                + " is out of date: run mvn -pl modules/courier-spring-boot-autoconfigure test"
                + " -Dtest=ConfigurationMetadataTest -Dcourier.docs.write=true")
        .isEqualTo(generated);
  }

  @Test
  void everyKeyOfEveryDefinitionIsThere() throws Exception {
    Map<?, ?> metadata = new ObjectMapper().readValue(FILE.toFile(), Map.class);
    List<Object> names = new ArrayList<>();
    for (Object property : (List<?>) metadata.get("properties")) {
      names.add(((Map<?, ?>) property).get("name"));
    }
    for (ConfigDef definition : KnownDefinitions.present()) {
      for (String key : definition.names()) {
        assertThat(names).contains(CourierSettings.PREFIX + key);
      }
    }
    assertThat(names).contains("courier.outbox.relay.enabled", "courier.kafka");
  }

  static String generate() throws Exception {
    Map<String, Map<String, Object>> properties = new TreeMap<>();
    for (ConfigDef definition : KnownDefinitions.present()) {
      for (ConfigDef.ConfigKey key : definition.configKeys().values()) {
        Map<String, Object> p = new LinkedHashMap<>();
        p.put("name", CourierSettings.PREFIX + key.name);
        p.put("type", javaType(key.type));
        p.put("description", key.documentation);
        Object defaultValue = defaultValue(key);
        if (defaultValue != null) {
          p.put("defaultValue", defaultValue);
        }
        properties.put(key.name, p);
      }
    }
    for (CourierSettings.Switch s : CourierSettings.SWITCHES) {
      Map<String, Object> p = new LinkedHashMap<>();
      p.put("name", CourierSettings.PREFIX + s.key());
      p.put("type", "java.lang.Boolean");
      p.put("description", s.description());
      p.put("defaultValue", s.defaultValue());
      properties.put(s.key(), p);
    }
    Map<String, Object> kafka = new LinkedHashMap<>();
    kafka.put("name", "courier.kafka");
    kafka.put("type", "java.util.Map<java.lang.String,java.lang.String>");
    kafka.put(
        "description",
        "Kafka client settings for Courier's clients only (courier.kafka.security.protocol=SSL),"
            + " over those Spring Boot's spring.kafka.* settings give every client.");
    properties.put("kafka", kafka);

    List<Map<String, Object>> hints = new ArrayList<>();
    for (ConfigDef definition : KnownDefinitions.present()) {
      for (ConfigDef.ConfigKey key : definition.configKeys().values()) {
        List<String> values = choices(key);
        if (!values.isEmpty()) {
          Map<String, Object> hint = new LinkedHashMap<>();
          hint.put("name", CourierSettings.PREFIX + key.name);
          List<Map<String, Object>> listed = new ArrayList<>();
          values.forEach(v -> listed.add(Map.of("value", v)));
          hint.put("values", listed);
          hints.add(hint);
        }
      }
    }
    hints.sort((a, b) -> ((String) a.get("name")).compareTo((String) b.get("name")));

    Map<String, Object> metadata = new LinkedHashMap<>();
    Map<String, Object> group = new LinkedHashMap<>();
    group.put("name", "courier");
    group.put(
        "description",
        "Courier's settings: the keys of docs/configuration.md with the prefix 'courier.'.");
    metadata.put("groups", List.of(group));
    metadata.put("properties", new ArrayList<>(properties.values()));
    metadata.put("hints", hints);
    return new ObjectMapper()
            .enable(SerializationFeature.INDENT_OUTPUT)
            .writeValueAsString(metadata)
        + "\n";
  }

  private static String javaType(ConfigDef.Type type) {
    switch (type) {
      case BOOLEAN:
        return "java.lang.Boolean";
      case INT:
        return "java.lang.Integer";
      case SHORT:
        return "java.lang.Short";
      case LONG:
        return "java.lang.Long";
      case DOUBLE:
        return "java.lang.Double";
      case LIST:
        return "java.util.List<java.lang.String>";
      case CLASS:
        return "java.lang.Class<?>";
      default:
        return "java.lang.String";
    }
  }

  private static Object defaultValue(ConfigDef.ConfigKey key) {
    Object value = key.defaultValue;
    if (value == null || value == ConfigDef.NO_DEFAULT_VALUE || value instanceof Password) {
      return null;
    }
    if (value instanceof List<?> list) {
      return list.isEmpty() ? null : list;
    }
    if (value instanceof Class<?> c) {
      return c.getName();
    }
    return value;
  }

  /**
   * The values a setting with fixed choices accepts, as its validator lists them ("[fail,
   * dead-letter]"); a range ("[1,...,65535]") is no list of choices.
   */
  private static List<String> choices(ConfigDef.ConfigKey key) {
    String listed = key.validator == null ? "" : key.validator.toString();
    if (!listed.startsWith("[") || !listed.endsWith("]") || listed.contains("...")) {
      return List.of();
    }
    return Arrays.asList(listed.substring(1, listed.length() - 1).split(", "));
  }
}
