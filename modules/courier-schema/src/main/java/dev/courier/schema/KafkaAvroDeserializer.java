package dev.courier.schema;

import dev.courier.schema.AvroDeserializationException.Reason;
import dev.courier.schema.internal.AvroData;
import dev.courier.schema.internal.MessageDecoder;
import dev.courier.schema.internal.WireFormat;
import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.avro.AvroRuntimeException;
import org.apache.avro.AvroTypeException;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.io.DatumReader;
import org.apache.avro.specific.SpecificDatumReader;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.serialization.Deserializer;

/**
 * Confluent's wire format to Avro records: the writer schema comes from the registry by the id in
 * the header; the reader schema is the generated class's ({@code specific.avro.reader=true}), a
 * pinned contract version (the constructor with a reader schema), or the writer's own. Bad bytes
 * raise {@link AvroDeserializationException} with the topic, schema id and reason.
 */
public class KafkaAvroDeserializer extends AvroSerdeSupport implements Deserializer<Object> {

  private boolean specificReader;
  private boolean logicalTypeConverters;
  private final Schema pinnedReaderSchema;

  /**
   * How records of one writer schema are read: its reader, and whether an array's item count can be
   * checked against the bytes left ({@link MessageDecoder#arrayItemsTakeBytes}).
   */
  private record Reading(DatumReader<Object> reader, boolean arrayItemsTakeBytes) {}

  /** The reading for a writer schema id: which reader applies is fixed per deserializer. */
  private final Map<Integer, Reading> readingsById = new ConcurrentHashMap<>();

  /**
   * The reading of the last schema id read: a topic's records almost always share one, so the
   * common case costs no map probe (and no boxing of the id). Immutable, so a racing thread sees a
   * whole memo or the previous one.
   */
  private record Last(int id, Reading reading) {}

  private volatile Last last;

  private static final ThreadLocal<MessageDecoder> DECODER =
      ThreadLocal.withInitial(MessageDecoder::new);

  /**
   * The thread that deserializes with this instance first (a consumer's poll thread, in practice
   * the only one) and its decoder, reached without a ThreadLocal probe on every record; any other
   * thread takes its decoder from {@link #DECODER}.
   */
  private final AtomicReference<Thread> owner = new AtomicReference<>();

  private final MessageDecoder ownerDecoder = new MessageDecoder();

  private record ReaderKey(Schema writer, Schema reader, Class<?> specificClass) {}

  /** For Kafka's consumer, which instantiates by class name and then calls configure. */
  public KafkaAvroDeserializer() {
    this(null, null);
  }

  /** With a client shared by several serdes; {@link #configure} must still be called. */
  public KafkaAvroDeserializer(SchemaRegistryClient client) {
    this(client, null);
  }

  /**
   * Reads every record as a generic record of {@code readerSchema}, whatever version wrote it: a
   * consumer pinned to the contract version it was built against.
   */
  public KafkaAvroDeserializer(SchemaRegistryClient client, Schema readerSchema) {
    super(client);
    this.pinnedReaderSchema = readerSchema;
  }

  @Override
  public void configure(Map<String, ?> configs, boolean isKey) {
    KafkaAvroSerdeConfig config = configureSerde(configs);
    this.specificReader = config.getBoolean(KafkaAvroSerdeConfig.SPECIFIC_AVRO_READER);
    this.logicalTypeConverters =
        config.getBoolean(KafkaAvroSerdeConfig.USE_LOGICAL_TYPE_CONVERTERS);
  }

  @Override
  public Object deserialize(String topic, byte[] data) {
    if (data == null) {
      return null;
    }
    return deserialize(topic, data, 0, data.length);
  }

  /** The message in {@code data[offset, offset + length)}. */
  private Object deserialize(String topic, byte[] data, int offset, int length) {
    Objects.requireNonNull(client, "KafkaAvroDeserializer used before configure()");
    if (length < WireFormat.HEADER_SIZE) {
      throw new AvroDeserializationException(
          Reason.TRUNCATED,
          topic,
          -1,
          length + " bytes, fewer than the 5-byte header (magic byte and schema id)",
          null);
    }
    if (data[offset] != WireFormat.MAGIC_BYTE) {
      throw new AvroDeserializationException(
          Reason.WRONG_MAGIC_BYTE,
          topic,
          -1,
          "first byte is " + data[offset] + ", not the magic byte 0 of Confluent's wire format",
          null);
    }
    int id = WireFormat.schemaId(data, offset);
    Last memo = last;
    Reading reading;
    if (memo != null && memo.id() == id) {
      reading = memo.reading();
    } else {
      reading = readingsById.computeIfAbsent(id, k -> readingOf(topic, id));
      last = new Last(id, reading);
    }
    MessageDecoder decoder =
        decoder()
            .reset(
                data,
                offset + WireFormat.HEADER_SIZE,
                length - WireFormat.HEADER_SIZE,
                reading.arrayItemsTakeBytes());
    try {
      return reading.reader().read(null, decoder);
    } catch (EOFException e) {
      throw new AvroDeserializationException(
          Reason.TRUNCATED,
          topic,
          id,
          "the data ended before a complete " + writerSchema(topic, id).getFullName() + " was read",
          e);
    } catch (IndexOutOfBoundsException e) {
      // MessageDecoder ends every short record in EOFException, so an index out of range is the
      // data's: Avro's reader looks a union branch or an enum symbol up by the index it read.
      throw new AvroDeserializationException(
          Reason.MALFORMED,
          topic,
          id,
          "a union branch or enum symbol index that writer schema "
              + id
              + " does not have: "
              + e.getMessage(),
          e);
    } catch (AvroTypeException e) {
      throw new AvroDeserializationException(
          Reason.INCOMPATIBLE_READER,
          topic,
          id,
          "the reader schema cannot read what writer schema " + id + " wrote: " + e.getMessage(),
          e);
    } catch (IOException | AvroRuntimeException e) {
      throw new AvroDeserializationException(
          Reason.MALFORMED, topic, id, "malformed Avro data: " + e, e);
    } finally {
      decoder.clear();
    }
  }

  /** The calling thread's decoder. */
  private MessageDecoder decoder() {
    Thread current = Thread.currentThread();
    Thread first = owner.get();
    if (first == current || (first == null && owner.compareAndSet(null, current))) {
      return ownerDecoder;
    }
    return DECODER.get();
  }

  @Override
  public Object deserialize(String topic, Headers headers, byte[] data) {
    return deserialize(topic, data);
  }

  /**
   * What Kafka's consumer calls with a record's value, a view of the fetched batch: read in place
   * where the buffer exposes its array, which saves the copy into a new array that a byte-array
   * deserializer gets from Kafka's default. Avro copies whatever it keeps (strings, bytes,
   * decimals), so no record refers to the fetch buffer.
   */
  @Override
  public Object deserialize(String topic, Headers headers, ByteBuffer data) {
    if (data == null) {
      return null;
    }
    if (data.hasArray()) {
      return deserialize(
          topic, data.array(), data.arrayOffset() + data.position(), data.remaining());
    }
    byte[] bytes = new byte[data.remaining()];
    data.duplicate().get(bytes);
    return deserialize(topic, bytes, 0, bytes.length);
  }

  private Schema writerSchema(String topic, int id) {
    try {
      return client.schemaById(id);
    } catch (SchemaRegistryException e) {
      Reason reason = e.retriable() ? Reason.REGISTRY_UNAVAILABLE : Reason.UNKNOWN_SCHEMA_ID;
      throw new AvroDeserializationException(reason, topic, id, e.getMessage(), e);
    }
  }

  private Reading readingOf(String topic, int id) {
    Schema writer = writerSchema(topic, id);
    return new Reading(
        readerFor(readerKey(topic, id, writer)), MessageDecoder.arrayItemsTakeBytes(writer));
  }

  private ReaderKey readerKey(String topic, int id, Schema writer) {
    if (pinnedReaderSchema != null) {
      return new ReaderKey(writer, pinnedReaderSchema, null);
    }
    if (!specificReader) {
      return new ReaderKey(writer, writer, null);
    }
    Class<?> type = AvroData.specificClass(writer);
    if (type == null) {
      throw new AvroDeserializationException(
          Reason.INCOMPATIBLE_READER,
          topic,
          id,
          "specific.avro.reader=true but no generated class "
              + writer.getFullName()
              + " is on the classpath",
          null);
    }
    return new ReaderKey(writer, AvroData.specific(type).getSchema(type), type);
  }

  private DatumReader<Object> readerFor(ReaderKey key) {
    if (key.specificClass() != null) {
      return new SpecificDatumReader<>(
          key.writer(), key.reader(), AvroData.specific(key.specificClass()));
    }
    return new GenericDatumReader<>(
        key.writer(), key.reader(), AvroData.generic(logicalTypeConverters));
  }
}
