package dev.courier.schema;

import dev.courier.schema.subject.SubjectNameStrategy;
import dev.courier.schema.subject.SubjectNames;
import dev.courier.schema.subject.TopicNameStrategy;
import java.util.Map;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Type;

/**
 * Settings of {@link KafkaAvroSerializer} and {@link KafkaAvroDeserializer}: the registry client's
 * keys plus the serde keys, all named as in Confluent's {@code KafkaAvroSerializerConfig}. Strategy
 * values may be Confluent's class names; they map to Courier's strategies of the same name.
 */
public class KafkaAvroSerdeConfig extends SchemaRegistryClientConfig {

  public static final String AUTO_REGISTER_SCHEMAS = "auto.register.schemas";
  public static final String USE_LATEST_VERSION = "use.latest.version";
  public static final String SPECIFIC_AVRO_READER = "specific.avro.reader";
  public static final String KEY_SUBJECT_NAME_STRATEGY = "key.subject.name.strategy";
  public static final String VALUE_SUBJECT_NAME_STRATEGY = "value.subject.name.strategy";
  public static final String USE_LOGICAL_TYPE_CONVERTERS = "avro.use.logical.type.converters";
  public static final String REMOVE_JAVA_PROPERTIES = "avro.remove.java.properties";

  private static final ConfigDef CONFIG =
      SchemaRegistryClientConfig.configDef()
          .define(
              AUTO_REGISTER_SCHEMAS,
              Type.BOOLEAN,
              true,
              Importance.MEDIUM,
              "Whether the serializer registers the record's schema under the subject; when false"
                  + " the schema must already be registered there.")
          .define(
              USE_LATEST_VERSION,
              Type.BOOLEAN,
              false,
              Importance.MEDIUM,
              "Whether the serializer writes with the subject's latest registered version instead"
                  + " of the record's own schema (records are converted when they differ). Takes"
                  + " effect with auto.register.schemas=false.")
          .define(
              SPECIFIC_AVRO_READER,
              Type.BOOLEAN,
              false,
              Importance.MEDIUM,
              "Whether the deserializer returns generated SpecificRecord classes (reading with the"
                  + " generated class's schema) instead of GenericRecord.")
          .define(
              KEY_SUBJECT_NAME_STRATEGY,
              Type.STRING,
              TopicNameStrategy.class.getName(),
              Importance.MEDIUM,
              "How the key schema's subject is named: TopicNameStrategy (<topic>-key),"
                  + " RecordNameStrategy or TopicRecordNameStrategy.")
          .define(
              VALUE_SUBJECT_NAME_STRATEGY,
              Type.STRING,
              TopicNameStrategy.class.getName(),
              Importance.MEDIUM,
              "How the value schema's subject is named: TopicNameStrategy (<topic>-value),"
                  + " RecordNameStrategy or TopicRecordNameStrategy.")
          .define(
              USE_LOGICAL_TYPE_CONVERTERS,
              Type.BOOLEAN,
              false,
              Importance.LOW,
              "Whether generic records carry logical types as Java values (BigDecimal, Instant)"
                  + " rather than their Avro encoding.")
          .define(
              REMOVE_JAVA_PROPERTIES,
              Type.BOOLEAN,
              false,
              Importance.LOW,
              "Whether the serializer strips the avro.java.string properties that generated"
                  + " classes add, so the registered schema equals the .avsc contract.");

  public KafkaAvroSerdeConfig(Map<String, ?> originals) {
    super(CONFIG, originals);
  }

  public static ConfigDef serdeConfigDef() {
    return new ConfigDef(CONFIG);
  }

  /** The subject strategy for keys or values, validated when the serde is configured. */
  public SubjectNameStrategy subjectNameStrategy(boolean isKey) {
    String key = isKey ? KEY_SUBJECT_NAME_STRATEGY : VALUE_SUBJECT_NAME_STRATEGY;
    return SubjectNames.strategy(key, getString(key));
  }
}
