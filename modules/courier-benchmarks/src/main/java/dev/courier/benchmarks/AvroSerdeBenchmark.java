package dev.courier.benchmarks;

import dev.courier.schema.KafkaAvroDeserializer;
import dev.courier.schema.KafkaAvroSerializer;
import dev.courier.schema.credit.CreditRequested;
import dev.courier.schema.registry.LocalSchemaRegistry;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.avro.io.BinaryDecoder;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.DecoderFactory;
import org.apache.avro.io.EncoderFactory;
import org.apache.avro.specific.SpecificDatumReader;
import org.apache.avro.specific.SpecificDatumWriter;
import org.apache.kafka.common.serialization.Deserializer;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Courier's Confluent-format serde against Avro's raw {@code BinaryEncoder}/{@code BinaryDecoder}
 * on the same CreditRequested records, both through Avro's own datum reader and writer: Courier
 * adds the wire-format header and the id cache lookup, and encodes and decodes with its own array
 * coders where raw Avro uses its stream-oriented ones. Deserialization is measured twice: from a
 * byte array, and from a view into a fetched batch, which is what Kafka's consumer passes. Registry
 * calls happen only in setup (cached after).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(3)
public class AvroSerdeBenchmark {

  private static final String TOPIC = "credits";
  private static final int RECORDS = 1024;

  private LocalSchemaRegistry registry;
  private KafkaAvroSerializer serializer;
  private KafkaAvroDeserializer deserializer;
  private final SpecificDatumWriter<CreditRequested> rawWriter =
      new SpecificDatumWriter<>(CreditRequested.class);
  private final SpecificDatumReader<CreditRequested> rawReader =
      new SpecificDatumReader<>(CreditRequested.class);
  private final ByteArrayOutputStream rawOut = new ByteArrayOutputStream(256);
  private BinaryEncoder rawEncoder;
  private BinaryDecoder rawDecoder;

  private CreditRequested[] records;
  private byte[][] courierBytes;
  private byte[][] rawBytes;

  /**
   * The same records as Kafka's consumer hands them to a deserializer: each value a view into the
   * fetched batch's buffer.
   */
  private ByteBuffer[] courierViews;

  private ByteBuffer[] rawViews;

  /**
   * Raw Avro as a byte-array {@link Deserializer}, as a team would write it: Kafka's default copies
   * each value out of the batch before calling it.
   */
  private final Deserializer<CreditRequested> rawKafkaDeserializer =
      new Deserializer<>() {
        private BinaryDecoder decoder;

        @Override
        public CreditRequested deserialize(String topic, byte[] data) {
          decoder = DecoderFactory.get().binaryDecoder(data, decoder);
          try {
            return rawReader.read(null, decoder);
          } catch (IOException e) {
            throw new UncheckedIOException(e);
          }
        }
      };

  private int next;

  @Setup(Level.Trial)
  public void setUp() throws IOException {
    registry = LocalSchemaRegistry.start();
    Map<String, Object> config =
        Map.of("schema.registry.url", registry.url(), "specific.avro.reader", true);
    serializer = new KafkaAvroSerializer();
    serializer.configure(config, false);
    deserializer = new KafkaAvroDeserializer();
    deserializer.configure(config, false);
    records = new CreditRequested[RECORDS];
    courierBytes = new byte[RECORDS][];
    rawBytes = new byte[RECORDS][];
    for (int i = 0; i < RECORDS; i++) {
      records[i] = credit(i);
      courierBytes[i] = serializer.serialize(TOPIC, records[i]);
      rawBytes[i] = Arrays.copyOfRange(courierBytes[i], 5, courierBytes[i].length);
    }
    courierViews = views(courierBytes);
    rawViews = views(rawBytes);
  }

  /** Each message a slice of one buffer holding them all, as records lie in a fetched batch. */
  private static ByteBuffer[] views(byte[][] messages) {
    ByteBuffer batch =
        ByteBuffer.allocate(Arrays.stream(messages).mapToInt(m -> m.length + 8).sum());
    ByteBuffer[] views = new ByteBuffer[messages.length];
    for (int i = 0; i < messages.length; i++) {
      // Kafka's record framing (length, attributes, deltas, key) lies between two values.
      batch.position(batch.position() + 8);
      views[i] = batch.slice().limit(messages[i].length);
      batch.put(messages[i]);
    }
    return views;
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    serializer.close();
    deserializer.close();
    registry.close();
  }

  @Benchmark
  public byte[] courierSerialize() {
    return serializer.serialize(TOPIC, records[nextIndex()]);
  }

  @Benchmark
  public byte[] rawSerialize() throws IOException {
    rawOut.reset();
    rawEncoder = EncoderFactory.get().binaryEncoder(rawOut, rawEncoder);
    rawWriter.write(records[nextIndex()], rawEncoder);
    rawEncoder.flush();
    return rawOut.toByteArray();
  }

  @Benchmark
  public Object courierDeserialize() {
    return deserializer.deserialize(TOPIC, courierBytes[nextIndex()]);
  }

  @Benchmark
  public CreditRequested rawDeserialize() throws IOException {
    rawDecoder = DecoderFactory.get().binaryDecoder(rawBytes[nextIndex()], rawDecoder);
    return rawReader.read(null, rawDecoder);
  }

  @Benchmark
  public Object courierDeserializeFromBatch() {
    return deserializer.deserialize(TOPIC, null, courierViews[nextIndex()]);
  }

  @Benchmark
  public CreditRequested rawDeserializeFromBatch() {
    return rawKafkaDeserializer.deserialize(TOPIC, null, rawViews[nextIndex()]);
  }

  private int nextIndex() {
    next = (next + 1) & (RECORDS - 1);
    return next;
  }

  private static CreditRequested credit(int i) {
    return CreditRequested.newBuilder()
        .setOperationId("op-" + i)
        .setAccountId("acc-" + (i % 97))
        .setAmount(new BigDecimal(i + ".5").setScale(2))
        .setCurrency(i % 2 == 0 ? "EUR" : "USD")
        .setRequestedAt(Instant.parse("2026-05-01T00:00:00Z").plusSeconds(i))
        .setDeadline(i % 3 == 0 ? Instant.parse("2026-05-02T00:00:00Z") : null)
        .setReference(i % 4 == 0 ? "invoice " + i : null)
        .build();
  }
}
