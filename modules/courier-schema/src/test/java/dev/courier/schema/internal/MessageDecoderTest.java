package dev.courier.schema.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;
import org.apache.avro.AvroRuntimeException;
import org.apache.avro.InvalidNumberEncodingException;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.io.DatumReader;
import org.apache.avro.io.DecoderFactory;
import org.apache.avro.io.Encoder;
import org.apache.avro.io.EncoderFactory;
import org.apache.avro.util.Utf8;
import org.junit.jupiter.api.Test;

/**
 * The decoder reads what Avro's BinaryDecoder reads, value for value, over every type, schema
 * resolution's skipping and blocked collections; and a message that declares more than it holds
 * ends in EOFException before anything of that size is allocated.
 */
class MessageDecoderTest {

  private static final Schema WRITER = EverythingRecords.SCHEMA;

  /** Keeps two fields and adds one: every other field of the writer is skipped. */
  private static final Schema READER =
      new Schema.Parser()
          .parse(
              """
              {"type": "record", "name": "Everything", "fields": [
                {"name": "s", "type": "string"},
                {"name": "u", "type": ["null", "long", "string",
                  {"type": "record", "name": "Line", "fields": [
                    {"name": "sku", "type": "string"}]}]},
                {"name": "added", "type": "int", "default": 7}
              ]}
              """);

  private final EverythingRecords records = new EverythingRecords(20261202);

  @Test
  void readsWhatBinaryDecoderReadsForEveryType() throws IOException {
    for (int i = 0; i < 500; i++) {
      GenericData.Record record = records.next();
      for (boolean blocked : new boolean[] {false, true}) {
        byte[] message = encode(record, blocked);
        assertThat(readBoth(WRITER, WRITER, message)).isEqualTo(record);
        Object resolved = readBoth(WRITER, READER, message);
        assertThat(((GenericData.Record) resolved).get("added")).isEqualTo(7);
      }
    }
  }

  @Test
  void everyStrictPrefixOfAMessageEndsInEndOfFile() throws IOException {
    for (int i = 0; i < 20; i++) {
      byte[] message = encode(records.next(), i % 2 == 0);
      for (int length = 0; length < message.length; length++) {
        byte[] prefix = Arrays.copyOf(message, length);
        assertThatThrownBy(() -> read(WRITER, WRITER, prefix))
            .as("prefix of %d bytes of %d", prefix.length, message.length)
            .isInstanceOf(EOFException.class);
        assertThatThrownBy(() -> read(WRITER, READER, prefix)).isInstanceOf(EOFException.class);
      }
    }
  }

  @Test
  void declaredLengthsAndCountsBeyondTheMessageAllocateNothing() {
    long huge = 1_500_000_000L;
    for (String type :
        List.of(
            "\"string\"",
            "\"bytes\"",
            "{\"type\": \"array\", \"items\": \"int\"}",
            "{\"type\": \"map\", \"values\": \"int\"}")) {
      Schema schema = new Schema.Parser().parse(type);
      byte[] message = zigZag(huge);
      DatumReader<Object> reader = reader(schema, schema);
      MessageDecoder decoder = new MessageDecoder().reset(message, 0, message.length, true);
      com.sun.management.ThreadMXBean threads =
          (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
      long before = threads.getCurrentThreadAllocatedBytes();
      Throwable thrown = null;
      try {
        reader.read(null, decoder);
      } catch (IOException | RuntimeException e) {
        thrown = e;
      }
      long allocated = threads.getCurrentThreadAllocatedBytes() - before;

      assertThat(thrown).as(type).isInstanceOf(EOFException.class);
      assertThat(allocated).as(type).isLessThan(1 << 20);
    }
  }

  @Test
  void anArrayOfItemsThatTakeNoBytesMayOutnumberTheBytes() throws IOException {
    Schema nulls = new Schema.Parser().parse("{\"type\": \"array\", \"items\": \"null\"}");
    byte[] message = concat(zigZag(1000), zigZag(0));

    assertThat(MessageDecoder.arrayItemsTakeBytes(nulls)).isFalse();
    assertThat((List<?>) read(nulls, nulls, message)).hasSize(1000).containsOnlyNulls();
  }

  @Test
  void knowsWhichSchemasHoldArraysOfItemsThatCanTakeNoBytes() {
    assertThat(MessageDecoder.arrayItemsTakeBytes(READER)).isTrue();
    assertThat(MessageDecoder.arrayItemsTakeBytes(WRITER)).isFalse();
    assertThat(MessageDecoder.arrayItemsTakeBytes(WRITER.getField("lines").schema())).isTrue();
    Schema emptyRecords =
        new Schema.Parser()
            .parse(
                """
                {"type": "map", "values": {"type": "array", "items": {"type": "record",
                  "name": "Empty", "fields": [
                    {"name": "none", "type": "null"},
                    {"name": "zero", "type": {"type": "fixed", "name": "Zero", "size": 0}}]}}}
                """);
    assertThat(MessageDecoder.arrayItemsTakeBytes(emptyRecords)).isFalse();
    Schema linkedList =
        new Schema.Parser()
            .parse(
                """
                {"type": "record", "name": "Node", "fields": [
                  {"name": "children", "type": {"type": "array", "items": "Node"}}]}
                """);
    assertThat(MessageDecoder.arrayItemsTakeBytes(linkedList)).isTrue();
  }

  @Test
  void malformedNumbersAndLengthsAreAvrosErrors() {
    Schema longs = Schema.create(Schema.Type.LONG);
    Schema ints = Schema.create(Schema.Type.INT);
    Schema strings = Schema.create(Schema.Type.STRING);
    byte[] elevenByteLong = new byte[11];
    Arrays.fill(elevenByteLong, (byte) 0xff);
    byte[] sixByteInt = new byte[6];
    Arrays.fill(sixByteInt, (byte) 0xff);

    assertThatThrownBy(() -> read(longs, longs, elevenByteLong))
        .isInstanceOf(InvalidNumberEncodingException.class)
        .hasMessage("Invalid long encoding");
    assertThatThrownBy(() -> read(ints, ints, sixByteInt))
        .isInstanceOf(InvalidNumberEncodingException.class)
        .hasMessage("Invalid int encoding");
    assertThatThrownBy(() -> read(strings, strings, zigZag(-1)))
        .isInstanceOf(AvroRuntimeException.class)
        .hasMessageContaining("Length is negative");
  }

  @Test
  void readsOnlyItsOwnSliceOfALargerArrayAndReusesItsTargets() throws IOException {
    byte[] message = encode(records.next(), false);
    byte[] around = new byte[message.length + 40];
    Arrays.fill(around, (byte) 0x80);
    System.arraycopy(message, 0, around, 17, message.length);
    MessageDecoder decoder = new MessageDecoder();

    Object whole =
        reader(WRITER, WRITER).read(null, decoder.reset(message, 0, message.length, false));
    Object sliced =
        reader(WRITER, WRITER).read(null, decoder.reset(around, 17, message.length, false));
    assertThat(sliced).isEqualTo(whole);
    assertThatThrownBy(() -> decoder.reset(around, 17, around.length, false))
        .isInstanceOf(IndexOutOfBoundsException.class);

    byte[] twoValues =
        concat(concat(zigZag(3), "abc".getBytes()), concat(zigZag(2), new byte[] {1, 2}));
    decoder.reset(twoValues, 0, twoValues.length, true);
    Utf8 reused = new Utf8("a longer string than abc");
    assertThat((Object) decoder.readString(reused)).isSameAs(reused).hasToString("abc");
    ByteBuffer bytes = ByteBuffer.allocate(8);
    assertThat(decoder.readBytes(bytes))
        .isSameAs(bytes)
        .isEqualTo(ByteBuffer.wrap(new byte[] {1, 2}));
  }

  /** The message read by Avro's BinaryDecoder and by this decoder, which must agree. */
  /**
   * The message read by Avro's BinaryDecoder and by this decoder, which must agree, through Avro's
   * fast reader (its default) and through the resolving decoder it uses when that is switched off.
   */
  private static Object readBoth(Schema writer, Schema reader, byte[] message) throws IOException {
    Object expected =
        reader(writer, reader).read(null, DecoderFactory.get().binaryDecoder(message, null));
    Object actual = read(writer, reader, message);
    assertThat(actual).isEqualTo(expected);
    Object resolving =
        new GenericDatumReader<>(writer, reader, new GenericData().setFastReaderEnabled(false))
            .read(null, new MessageDecoder().reset(message, 0, message.length, false));
    assertThat(resolving).isEqualTo(expected);
    return actual;
  }

  private static Object read(Schema writer, Schema reader, byte[] message) throws IOException {
    return reader(writer, reader)
        .read(
            null,
            new MessageDecoder()
                .reset(message, 0, message.length, MessageDecoder.arrayItemsTakeBytes(writer)));
  }

  private static DatumReader<Object> reader(Schema writer, Schema reader) {
    return new GenericDatumReader<>(writer, reader, GenericData.get());
  }

  private static byte[] encode(Object datum, boolean blocked) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    // The blocking encoder writes collections as blocks with their size in bytes, which a reader
    // that skips them uses.
    Encoder encoder =
        blocked
            ? EncoderFactory.get().blockingBinaryEncoder(out, null)
            : EncoderFactory.get().binaryEncoder(out, null);
    new GenericDatumWriter<>(WRITER).write(datum, encoder);
    encoder.flush();
    return out.toByteArray();
  }

  private static byte[] zigZag(long value) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    long n = (value << 1) ^ (value >> 63);
    while ((n & ~0x7fL) != 0) {
      out.write((int) (n & 0x7f) | 0x80);
      n >>>= 7;
    }
    out.write((int) n);
    return out.toByteArray();
  }

  private static byte[] concat(byte[] a, byte[] b) {
    byte[] both = Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, both, a.length, b.length);
    return both;
  }
}
