package dev.courier.schema.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Arrays;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.DatumWriter;
import org.apache.avro.io.EncoderFactory;
import org.junit.jupiter.api.Test;

/** The encoder writes, byte for byte, what Avro's BinaryEncoder writes, after the header. */
class MessageEncoderTest {

  private static final byte[] HEADER = {0, 0, 0, 1, 2};

  private final DatumWriter<Object> writer = new GenericDatumWriter<>(EverythingRecords.SCHEMA);
  private final MessageEncoder encoder = new MessageEncoder();

  @Test
  void writesWhatBinaryEncoderWritesForEveryType() throws IOException {
    EverythingRecords records = new EverythingRecords(20261202);
    for (int i = 0; i < 500; i++) {
      GenericData.Record record = records.next();
      assertThat(message(record)).isEqualTo(avro(record));
    }
  }

  /** A record far beyond the initial array, then small ones, which reuse or replace it. */
  @Test
  void growsForALargeRecordAndWritesSmallOnesAfterIt() throws IOException {
    EverythingRecords records = new EverythingRecords(7);
    GenericData.Record large = records.next();
    byte[] payload = new byte[3 << 20];
    Arrays.fill(payload, (byte) 0x5a);
    large.put("by", ByteBuffer.wrap(payload));
    GenericData.Record small = records.next();

    assertThat(message(large)).isEqualTo(avro(large));
    assertThat(message(small)).isEqualTo(avro(small));
    assertThat(message(small)).isEqualTo(avro(small));
  }

  private byte[] message(Object datum) throws IOException {
    encoder.reset().writeFixed(HEADER, 0, HEADER.length);
    writer.write(datum, encoder);
    return encoder.toByteArray();
  }

  private byte[] avro(Object datum) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    out.write(HEADER);
    BinaryEncoder avro = EncoderFactory.get().binaryEncoder(out, null);
    writer.write(datum, avro);
    avro.flush();
    return out.toByteArray();
  }
}
