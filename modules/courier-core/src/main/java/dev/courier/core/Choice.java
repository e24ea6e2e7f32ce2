package dev.courier.core;

import java.util.Arrays;
import java.util.Locale;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigException;

/**
 * A value of a setting with a fixed set of choices (an enum), spelled in configuration as Kafka
 * spells its own ({@code dead-letter}, {@code exponential}): settings name their choices once, in
 * the enum, and validate against it.
 */
public interface Choice {

  /** How the choice is written in a configuration. */
  String value();

  /** A validator that accepts exactly the enum's values (case-insensitive) and lists them. */
  static <E extends Enum<E> & Choice> ConfigDef.Validator validator(Class<E> type) {
    return ConfigDef.CaseInsensitiveValidString.in(values(type));
  }

  /** The configured value as the enum. */
  static <E extends Enum<E> & Choice> E of(Class<E> type, String value) {
    for (E e : type.getEnumConstants()) {
      if (e.value().equalsIgnoreCase(value.trim())) {
        return e;
      }
    }
    throw new ConfigException(
        "'" + value + "' is not one of " + Arrays.toString(values(type)).toLowerCase(Locale.ROOT));
  }

  private static <E extends Enum<E> & Choice> String[] values(Class<E> type) {
    return Arrays.stream(type.getEnumConstants()).map(Choice::value).toArray(String[]::new);
  }
}
