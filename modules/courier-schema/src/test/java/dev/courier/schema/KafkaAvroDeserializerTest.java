package dev.courier.schema;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.courier.schema.AvroDeserializationException.Reason;
import dev.courier.schema.credit.CreditRequested;
import dev.courier.schema.registry.LocalSchemaRegistry;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.ref.WeakReference;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.avro.Schema;
import org.apache.avro.SchemaBuilder;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.EncoderFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Every kind of bad input gives the exact exception with topic, schema id and reason. */
class KafkaAvroDeserializerTest {

  private LocalSchemaRegistry registry;
  private SchemaRegistryClient client;
  private byte[] good;
  private int id;

  @BeforeEach
  void setUp() {
    registry = LocalSchemaRegistry.start();
    client = SchemaRegistryClient.create(Map.of("schema.registry.url", registry.url()));
    KafkaAvroSerializer serializer = new KafkaAvroSerializer(client);
    serializer.configure(Map.of("schema.registry.url", registry.url()), false);
    good = serializer.serialize("credits", WireFormatVectorTest.fixedCredit());
    id = client.register("credits-value", CreditRequested.getClassSchema());
  }

  @AfterEach
  void tearDown() {
    client.close();
    registry.close();
  }

  private KafkaAvroDeserializer deserializer(boolean specific) {
    KafkaAvroDeserializer deserializer = new KafkaAvroDeserializer(client);
    deserializer.configure(
        Map.of("schema.registry.url", registry.url(), "specific.avro.reader", specific), false);
    return deserializer;
  }

  @Test
  void readsGoodBytesAsSpecificAndGeneric() {
    assertThat(deserializer(true).deserialize("credits", good))
        .isEqualTo(WireFormatVectorTest.fixedCredit());
    GenericRecord generic = (GenericRecord) deserializer(false).deserialize("credits", good);
    assertThat(generic.get("operationId").toString()).isEqualTo("op-1");
    assertThat(deserializer(false).deserialize("credits", (byte[]) null)).isNull();
  }

  /**
   * Kafka's consumer hands a record's value as a view into the fetched batch: read in place, a
   * record equals the one read from its own array and keeps nothing of the batch (which the
   * consumer reuses), and a header or body that is bad there is reported as it is from an array.
   */
  @Test
  void readsARecordInPlaceFromAViewOfAFetchedBatch() {
    byte[] batch = new byte[good.length + 40];
    Arrays.fill(batch, (byte) 7);
    System.arraycopy(good, 0, batch, 17, good.length);
    ByteBuffer view = ByteBuffer.wrap(batch, 11, good.length + 20).slice();
    view.position(6).limit(6 + good.length);

    KafkaAvroDeserializer deserializer = deserializer(true);
    Object read = deserializer.deserialize("credits", null, view);
    Arrays.fill(batch, (byte) 0);

    assertThat(read).isEqualTo(WireFormatVectorTest.fixedCredit());
    assertThat(view.position()).isEqualTo(6);
    ByteBuffer readOnly = ByteBuffer.wrap(good).asReadOnlyBuffer();
    assertThat(deserializer.deserialize("credits", null, readOnly))
        .isEqualTo(WireFormatVectorTest.fixedCredit());

    byte[] wrongMagic = good.clone();
    wrongMagic[0] = 1;
    byte[] padded = new byte[wrongMagic.length + 3];
    System.arraycopy(wrongMagic, 0, padded, 3, wrongMagic.length);
    assertThatThrownBy(
            () -> deserializer.deserialize("credits", null, ByteBuffer.wrap(padded, 3, 4).slice()))
        .isInstanceOfSatisfying(
            AvroDeserializationException.class,
            e -> assertThat(e.reason()).isEqualTo(Reason.TRUNCATED));
    assertThatThrownBy(
            () ->
                deserializer.deserialize(
                    "credits", null, ByteBuffer.wrap(padded, 3, wrongMagic.length).slice()))
        .isInstanceOfSatisfying(
            AvroDeserializationException.class,
            e -> assertThat(e.reason()).isEqualTo(Reason.WRONG_MAGIC_BYTE));
    // The whole message lies in the array; the view ends three bytes short of it.
    byte[] shortBody = new byte[good.length + 9];
    System.arraycopy(good, 0, shortBody, 9, good.length);
    assertThatThrownBy(
            () ->
                deserializer.deserialize(
                    "credits", null, ByteBuffer.wrap(shortBody, 9, good.length - 3).slice()))
        .isInstanceOfSatisfying(
            AvroDeserializationException.class,
            e -> assertThat(e.reason()).isEqualTo(Reason.TRUNCATED));
  }

  /**
   * One instance shared by threads (a consumer's thread owns a decoder of its own, the others
   * borrow theirs per thread): every record reads back whole, whichever thread reads it.
   */
  /**
   * The deserializer keeps its decoder between records; the batch a record was read from must not
   * stay reachable through it (a fetch can be tens of MiB).
   */
  @Test
  void keepsNoReferenceToTheBatchARecordWasReadFrom() {
    KafkaAvroDeserializer deserializer = deserializer(true);
    byte[] batch = new byte[1 << 20];
    System.arraycopy(good, 0, batch, 100, good.length);
    assertThat(deserializer.deserialize("credits", null, ByteBuffer.wrap(batch, 100, good.length)))
        .isEqualTo(WireFormatVectorTest.fixedCredit());
    WeakReference<byte[]> read = new WeakReference<>(batch);
    batch = null;

    for (int i = 0; i < 20 && read.get() != null; i++) {
      System.gc();
    }
    assertThat(read.get()).isNull();
  }

  @Test
  void threadsSharingOneDeserializerEachReadWholeRecords() throws Exception {
    KafkaAvroSerializer serializer = new KafkaAvroSerializer(client);
    serializer.configure(Map.of("schema.registry.url", registry.url()), false);
    List<CreditRequested> credits = new ArrayList<>();
    List<byte[]> bytes = new ArrayList<>();
    for (int i = 0; i < 200; i++) {
      CreditRequested credit = WireFormatVectorTest.fixedCredit();
      credit.setOperationId("op-" + i);
      credit.setAccountId("acc-" + "x".repeat(i % 37));
      credits.add(credit);
      bytes.add(serializer.serialize("credits", credit));
    }
    KafkaAvroDeserializer shared = deserializer(true);
    ExecutorService threads = Executors.newFixedThreadPool(4);
    try {
      List<Future<Integer>> readers = new ArrayList<>();
      for (int t = 0; t < 4; t++) {
        int offset = t;
        readers.add(
            threads.submit(
                () -> {
                  int read = 0;
                  for (int round = 0; round < 200; round++) {
                    int i = (round * 7 + offset * 13) % bytes.size();
                    assertThat(shared.deserialize("credits", bytes.get(i)))
                        .isEqualTo(credits.get(i));
                    read++;
                  }
                  return read;
                }));
      }
      for (Future<Integer> reader : readers) {
        assertThat(reader.get(60, TimeUnit.SECONDS)).isEqualTo(200);
      }
    } finally {
      threads.shutdownNow();
    }
  }

  @Test
  void wrongMagicByte() {
    byte[] bad = good.clone();
    bad[0] = 1;
    assertThatThrownBy(() -> deserializer(true).deserialize("credits", bad))
        .isInstanceOfSatisfying(
            AvroDeserializationException.class,
            e -> {
              assertThat(e.reason()).isEqualTo(Reason.WRONG_MAGIC_BYTE);
              assertThat(e.topic()).isEqualTo("credits");
              assertThat(e.schemaId()).isEqualTo(-1);
              assertThat(e.reason().permanent()).isTrue();
            })
        .hasMessage(
            "cannot deserialize Avro data of topic credits: WRONG_MAGIC_BYTE: first byte is 1,"
                + " not the magic byte 0 of Confluent's wire format");
  }

  @Test
  void truncatedHeader() {
    assertThatThrownBy(() -> deserializer(true).deserialize("credits", new byte[] {0, 0, 0}))
        .isInstanceOfSatisfying(
            AvroDeserializationException.class,
            e -> assertThat(e.reason()).isEqualTo(Reason.TRUNCATED))
        .hasMessageContaining("3 bytes, fewer than the 5-byte header");
  }

  @Test
  void truncatedBody() {
    byte[] cut = Arrays.copyOf(good, good.length - 6);
    assertThatThrownBy(() -> deserializer(false).deserialize("credits", cut))
        .isInstanceOfSatisfying(
            AvroDeserializationException.class,
            e -> {
              assertThat(e.reason()).isEqualTo(Reason.TRUNCATED);
              assertThat(e.schemaId()).isEqualTo(id);
            })
        .hasMessageContaining("(schema id " + id + ")")
        .hasMessageContaining(
            "the data ended before a complete dev.courier.schema.credit.CreditRequested was read");
  }

  /**
   * A record of ten bytes that declares a 1.5 GB string: Avro's own decoder allocated the string
   * before it found the bytes missing (an OutOfMemoryError in a 512 MiB consumer, on every
   * restart). It is truncation, found before anything is allocated.
   */
  @Test
  void aLengthBeyondTheRecordIsTruncationWithoutAllocatingIt() {
    byte[] hostile = declaringAHugeString(good);
    KafkaAvroDeserializer deserializer = deserializer(true);
    deserializer.deserialize("credits", good);
    com.sun.management.ThreadMXBean threads =
        (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    long before = threads.getCurrentThreadAllocatedBytes();

    assertThatThrownBy(() -> deserializer.deserialize("credits", hostile))
        .isInstanceOfSatisfying(
            AvroDeserializationException.class,
            e -> assertThat(e.reason()).isEqualTo(Reason.TRUNCATED))
        .hasMessageContaining("the data ended before a complete");
    assertThat(threads.getCurrentThreadAllocatedBytes() - before).isLessThan(1 << 20);
  }

  /** {@code good}'s header, then a string length of 1,500,000,000 and nothing after it. */
  static byte[] declaringAHugeString(byte[] good) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    out.write(good, 0, 5);
    long zigZag = 1_500_000_000L << 1;
    while ((zigZag & ~0x7fL) != 0) {
      out.write((int) (zigZag & 0x7f) | 0x80);
      zigZag >>>= 7;
    }
    out.write((int) zigZag);
    return out.toByteArray();
  }

  /**
   * A union branch the writer schema does not have (CreditRequested's deadline is a union of two):
   * refused as malformed, not as truncation, in both reading modes.
   */
  @Test
  void aUnionBranchTheSchemaDoesNotHaveIsMalformed() throws IOException {
    byte[] hostile = upToTheDeadline(good, e -> e.writeIndex(5));
    for (boolean specific : new boolean[] {true, false}) {
      assertThatThrownBy(() -> deserializer(specific).deserialize("credits", hostile))
          .isInstanceOfSatisfying(
              AvroDeserializationException.class,
              e -> {
                assertThat(e.reason()).isEqualTo(Reason.MALFORMED);
                assertThat(e.reason().permanent()).isTrue();
                assertThat(e.schemaId()).isEqualTo(id);
              })
          .hasMessageContaining("a union branch or enum symbol index that writer schema " + id);
    }
  }

  /** A number longer than ten bytes, and a negative string length: malformed, with Avro's words. */
  @Test
  void malformedNumbersAndNegativeLengthsAreMalformed() throws IOException {
    byte[] endlessNumber =
        upToTheDeadline(
            good, e -> e.writeFixed(new byte[] {-1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, 1}));
    byte[] negativeLength =
        upToTheDeadline(
            good,
            e -> {
              e.writeIndex(1);
              e.writeLong(0);
              e.writeIndex(1);
              e.writeLong(-3);
            });
    assertThatThrownBy(() -> deserializer(false).deserialize("credits", endlessNumber))
        .isInstanceOfSatisfying(
            AvroDeserializationException.class,
            e -> assertThat(e.reason()).isEqualTo(Reason.MALFORMED))
        .hasMessageContaining("malformed Avro data")
        .hasMessageContaining("Invalid");
    assertThatThrownBy(() -> deserializer(true).deserialize("credits", negativeLength))
        .isInstanceOfSatisfying(
            AvroDeserializationException.class,
            e -> assertThat(e.reason()).isEqualTo(Reason.MALFORMED))
        .hasMessageContaining("negative");
  }

  /**
   * {@code good}'s header and a CreditRequested's fields before its deadline, then {@code rest}.
   */
  static byte[] upToTheDeadline(byte[] good, Rest rest) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    out.write(good, 0, 5);
    BinaryEncoder e = EncoderFactory.get().directBinaryEncoder(out, null);
    e.writeString("op-1");
    e.writeString("acc-1");
    e.writeBytes(new byte[] {1, 0});
    e.writeString("EUR");
    e.writeLong(0);
    rest.write(e);
    e.flush();
    return out.toByteArray();
  }

  @FunctionalInterface
  interface Rest {
    void write(BinaryEncoder e) throws IOException;
  }

  @Test
  void unknownSchemaId() {
    byte[] unknown = good.clone();
    unknown[4] = 99;
    assertThatThrownBy(() -> deserializer(true).deserialize("credits", unknown))
        .isInstanceOfSatisfying(
            AvroDeserializationException.class,
            e -> {
              assertThat(e.reason()).isEqualTo(Reason.UNKNOWN_SCHEMA_ID);
              assertThat(e.schemaId()).isEqualTo(99);
              assertThat(e.getCause())
                  .isInstanceOf(SchemaRegistryException.SchemaNotFoundException.class);
            })
        .hasMessageContaining("Schema 99 not found")
        .hasMessageContaining("error code 40403");
  }

  @Test
  void incompatibleReader() {
    Schema reader =
        SchemaBuilder.record("CreditRequested")
            .namespace("dev.courier.schema.credit")
            .fields()
            .requiredString("operationId")
            .requiredLong("ledgerEntry")
            .endRecord();
    KafkaAvroDeserializer pinned = new KafkaAvroDeserializer(client, reader);
    pinned.configure(Map.of("schema.registry.url", registry.url()), false);
    assertThatThrownBy(() -> pinned.deserialize("credits", good))
        .isInstanceOfSatisfying(
            AvroDeserializationException.class,
            e -> {
              assertThat(e.reason()).isEqualTo(Reason.INCOMPATIBLE_READER);
              assertThat(e.schemaId()).isEqualTo(id);
            })
        .hasMessageContaining("ledgerEntry");
  }

  @Test
  void registryDownIsTransient() {
    registry.failNextRequests(100, 503);
    SchemaRegistryClient fresh =
        SchemaRegistryClient.create(
            Map.of(
                "schema.registry.url", registry.url(),
                "max.retries", 1,
                "retries.wait.ms", 1));
    KafkaAvroDeserializer deserializer = new KafkaAvroDeserializer(fresh);
    deserializer.configure(Map.of("schema.registry.url", registry.url()), false);
    assertThatThrownBy(() -> deserializer.deserialize("credits", good))
        .isInstanceOfSatisfying(
            AvroDeserializationException.class,
            e -> {
              assertThat(e.reason()).isEqualTo(Reason.REGISTRY_UNAVAILABLE);
              assertThat(e.reason().permanent()).isFalse();
            })
        .hasMessageContaining("gave up after 2 attempts");
  }
}
