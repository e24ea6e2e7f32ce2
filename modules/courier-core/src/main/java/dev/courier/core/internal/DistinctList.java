package dev.courier.core.internal;

import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigException;

/**
 * A list setting that must hold at least one value and no value twice. Kafka 4.3 has this as {@code
 * ValidList.anyNonDuplicateValues}; it is here so Courier runs on the Kafka clients Spring Boot
 * manages (4.1.x), which lack it.
 */
public final class DistinctList implements ConfigDef.Validator {

  @Override
  public void ensureValid(String name, Object value) {
    if (value == null) {
      throw new ConfigException(name, null, "a value is required");
    }
    List<?> values = (List<?>) value;
    if (values.isEmpty()) {
      throw new ConfigException(name, value, "at least one value is required");
    }
    Set<Object> seen = new HashSet<>();
    for (Object v : values) {
      if (!seen.add(v)) {
        throw new ConfigException(name, value, "'" + v + "' is listed twice");
      }
    }
  }

  @Override
  public String toString() {
    return ""; // the description says what the list holds
  }
}
