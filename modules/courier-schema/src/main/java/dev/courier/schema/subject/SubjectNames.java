package dev.courier.schema.subject;

import java.util.Map;
import org.apache.avro.Schema;
import org.apache.kafka.common.config.ConfigException;

/** Resolves strategy class names, accepting Confluent's names for the same strategies. */
public final class SubjectNames {

  private static final Map<String, Class<? extends SubjectNameStrategy>> ALIASES =
      Map.of(
          "io.confluent.kafka.serializers.subject.TopicNameStrategy", TopicNameStrategy.class,
          "io.confluent.kafka.serializers.subject.RecordNameStrategy", RecordNameStrategy.class,
          "io.confluent.kafka.serializers.subject.TopicRecordNameStrategy",
              TopicRecordNameStrategy.class);

  private SubjectNames() {}

  /**
   * The strategy named by a config value: a Courier or Confluent class name, or any class
   * implementing {@link SubjectNameStrategy}.
   */
  public static SubjectNameStrategy strategy(String key, String className) {
    Class<?> type = ALIASES.get(className);
    try {
      if (type == null) {
        type = Class.forName(className, true, Thread.currentThread().getContextClassLoader());
      }
      if (!SubjectNameStrategy.class.isAssignableFrom(type)) {
        throw new ConfigException(
            key, className, "does not implement " + SubjectNameStrategy.class.getName());
      }
      return (SubjectNameStrategy) type.getDeclaredConstructor().newInstance();
    } catch (ReflectiveOperationException e) {
      throw new ConfigException(key, className, "cannot be instantiated: " + e);
    }
  }

  static String recordName(Schema schema) {
    if (schema.getType() != Schema.Type.RECORD) {
      throw new IllegalArgumentException(
          "record name strategies need a record schema, got " + schema.getType());
    }
    return schema.getFullName();
  }
}
