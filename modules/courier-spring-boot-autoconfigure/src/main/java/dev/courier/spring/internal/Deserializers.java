package dev.courier.spring.internal;

import java.util.Map;
import java.util.function.Supplier;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.utils.Utils;

/**
 * The key and value deserializers Spring's consumer settings name ({@code
 * spring.kafka.consumer.key-deserializer}), one new instance per consumer, since a consumer closes
 * its deserializers; strings when none is named.
 */
public final class Deserializers {

  private Deserializers() {}

  public static Supplier<Deserializer<Object>> of(
      Map<String, Object> consumerProperties, String key, boolean isKey) {
    Object configured = consumerProperties.get(key);
    return () -> {
      Deserializer<Object> deserializer = instance(configured, key);
      deserializer.configure(consumerProperties, isKey);
      return deserializer;
    };
  }

  @SuppressWarnings("unchecked")
  private static Deserializer<Object> instance(Object configured, String key) {
    if (configured == null) {
      return (Deserializer<Object>) (Deserializer<?>) new StringDeserializer();
    }
    if (configured instanceof Deserializer<?> given) {
      return (Deserializer<Object>) given;
    }
    try {
      Object made =
          configured instanceof Class<?> type
              ? Utils.newInstance(type)
              : Utils.newInstance(configured.toString(), Deserializer.class);
      return (Deserializer<Object>) made;
    } catch (ClassNotFoundException e) {
      throw new KafkaException(key + ": no class " + configured, e);
    }
  }
}
