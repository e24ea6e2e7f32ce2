package dev.courier.schema;

import dev.courier.schema.internal.AvroData;
import dev.courier.schema.internal.JavaProperties;
import dev.courier.schema.internal.MessageEncoder;
import dev.courier.schema.internal.RecordConverter;
import dev.courier.schema.internal.WireFormat;
import dev.courier.schema.subject.SubjectNameStrategy;
import java.io.IOException;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericContainer;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.io.DatumWriter;
import org.apache.avro.specific.SpecificDatumWriter;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.serialization.Serializer;

/**
 * Avro records (generated {@link SpecificRecord}s or {@code GenericRecord}s) to Confluent's wire
 * format, with the schema registered in (or looked up from) a Confluent-compatible registry.
 * Configured with Confluent's keys (see {@link KafkaAvroSerdeConfig}); thread-safe, as Kafka's
 * producer requires.
 */
public class KafkaAvroSerializer extends AvroSerdeSupport implements Serializer<Object> {

  private boolean isKey;
  private boolean autoRegister;
  private boolean useLatestVersion;
  private boolean logicalTypeConverters;
  private boolean removeJavaProperties;
  private SubjectNameStrategy subjectNames;
  private final Map<Schema, DatumWriter<Object>> specificWriters = new ConcurrentHashMap<>();
  private final Map<Schema, DatumWriter<Object>> genericWriters = new ConcurrentHashMap<>();

  /** Per-thread encoder: the producer may call from several threads. */
  private static final ThreadLocal<MessageEncoder> ENCODER =
      ThreadLocal.withInitial(MessageEncoder::new);

  /**
   * The last topic and schema written, with the schema actually written and its 5-byte header: most
   * producers write one record type to one topic, and then a record costs no subject name, no id
   * lookup and no map probe. Immutable, so a racing thread sees a whole memo or the previous.
   */
  private record Memo(
      String topic, Schema given, Schema written, byte[] header, DatumWriter<Object> writer) {}

  private volatile Memo last;

  private final Map<String, RegisteredSchema> latestBySubject = new ConcurrentHashMap<>();
  private final Map<Schema, Schema> stripped = new ConcurrentHashMap<>();

  /** For Kafka's producer, which instantiates by class name and then calls configure. */
  public KafkaAvroSerializer() {
    super(null);
  }

  /** With a client shared by several serdes; {@link #configure} must still be called. */
  public KafkaAvroSerializer(SchemaRegistryClient client) {
    super(client);
  }

  @Override
  public void configure(Map<String, ?> configs, boolean isKey) {
    KafkaAvroSerdeConfig config = configureSerde(configs);
    this.isKey = isKey;
    this.autoRegister = config.getBoolean(KafkaAvroSerdeConfig.AUTO_REGISTER_SCHEMAS);
    this.useLatestVersion = config.getBoolean(KafkaAvroSerdeConfig.USE_LATEST_VERSION);
    this.logicalTypeConverters =
        config.getBoolean(KafkaAvroSerdeConfig.USE_LOGICAL_TYPE_CONVERTERS);
    this.removeJavaProperties = config.getBoolean(KafkaAvroSerdeConfig.REMOVE_JAVA_PROPERTIES);
    this.subjectNames = config.subjectNameStrategy(isKey);
  }

  @Override
  public byte[] serialize(String topic, Object data) {
    if (data == null) {
      return null;
    }
    if (subjectNames == null) {
      throw new IllegalStateException("KafkaAvroSerializer used before configure()");
    }
    if (!(data instanceof GenericContainer container)) {
      throw new SerializationException(
          "KafkaAvroSerializer writes Avro records (SpecificRecord or GenericRecord), got "
              + data.getClass().getName());
    }
    Memo memo = last;
    if (memo != null && memo.given() == container.getSchema() && memo.topic().equals(topic)) {
      return encode(memo.header(), memo.writer(), memo.written(), data, topic);
    }
    Schema schema =
        removeJavaProperties
            ? stripped.computeIfAbsent(container.getSchema(), JavaProperties::strip)
            : container.getSchema();
    String subject = subjectNames.subjectName(topic, isKey, schema);
    int id;
    Schema writerSchema = schema;
    Object datum = data;
    try {
      if (autoRegister) {
        id = client.register(subject, schema);
      } else if (useLatestVersion) {
        RegisteredSchema latest = latestBySubject.computeIfAbsent(subject, client::latest);
        id = latest.id();
        if (!latest.schema().equals(schema)) {
          // Write what the subject's latest version says, converting through Avro's resolution.
          datum =
              RecordConverter.convert(
                  data,
                  schema,
                  latest.schema(),
                  dataModel(data),
                  AvroData.generic(logicalTypeConverters));
          writerSchema = latest.schema();
        }
      } else {
        id = client.lookup(subject, schema).id();
      }
    } catch (SchemaRegistryException e) {
      throw new SerializationException(
          "cannot get a schema id for subject "
              + subject
              + " (topic "
              + topic
              + ", "
              + (isKey ? "key" : "value")
              + "): "
              + e.getMessage(),
          e);
    }
    byte[] header = {
      WireFormat.MAGIC_BYTE, (byte) (id >>> 24), (byte) (id >>> 16), (byte) (id >>> 8), (byte) id
    };
    if (datum == data) {
      // Not with a converted datum (use.latest.version with another schema): that path converts.
      last =
          new Memo(
              topic, container.getSchema(), writerSchema, header, writerFor(writerSchema, datum));
    }
    return encode(header, writerFor(writerSchema, datum), writerSchema, datum, topic);
  }

  private byte[] encode(
      byte[] header, DatumWriter<Object> writer, Schema schema, Object datum, String topic) {
    MessageEncoder encoder = ENCODER.get().reset();
    encoder.writeFixed(header, 0, header.length);
    try {
      writer.write(datum, encoder);
    } catch (IOException | RuntimeException e) {
      throw new SerializationException(
          "cannot write " + schema.getFullName() + " for topic " + topic + ": " + e.getMessage(),
          e);
    }
    return encoder.toByteArray();
  }

  private DatumWriter<Object> writerFor(Schema schema, Object datum) {
    if (datum instanceof SpecificRecord) {
      DatumWriter<Object> writer = specificWriters.get(schema);
      return writer != null
          ? writer
          : specificWriters.computeIfAbsent(
              schema, s -> new SpecificDatumWriter<>(s, AvroData.specific(datum.getClass())));
    }
    DatumWriter<Object> writer = genericWriters.get(schema);
    return writer != null
        ? writer
        : genericWriters.computeIfAbsent(
            schema, s -> new GenericDatumWriter<>(s, AvroData.generic(logicalTypeConverters)));
  }

  private org.apache.avro.generic.GenericData dataModel(Object datum) {
    return datum instanceof SpecificRecord
        ? AvroData.specific(datum.getClass())
        : AvroData.generic(logicalTypeConverters);
  }
}
