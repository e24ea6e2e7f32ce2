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

  /** The enum constant's name (every enum has it). */
  String name();

  /**
   * How the choice is written in a configuration: the constant's name in lower case with dashes, so
   * {@code DEAD_LETTER} is {@code dead-letter}.
   */
  default String value() {
    return name().toLowerCase(Locale.ROOT).replace('_', '-');
  }

  /**
   * A validator that accepts exactly the enum's values (case-insensitive) and lists them as they
   * are written (the configuration reference and every error message show {@code [fail,
   * dead-letter]}, not Kafka's upper-cased list).
   */
  static <E extends Enum<E> & Choice> ConfigDef.Validator validator(Class<E> type) {
    String listed = Arrays.toString(values(type));
    return new ConfigDef.Validator() {
      @Override
      public void ensureValid(String name, Object value) {
        if (value == null
            || Arrays.stream(values(type))
                .noneMatch(v -> v.equalsIgnoreCase(value.toString().trim()))) {
          throw new ConfigException(name, value, "must be one of " + listed);
        }
      }

      @Override
      public String toString() {
        return listed;
      }
    };
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
