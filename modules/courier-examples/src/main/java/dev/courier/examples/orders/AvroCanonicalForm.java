package dev.courier.examples.orders;

import dev.courier.idempotency.CanonicalForm;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.EncoderFactory;
import org.apache.avro.specific.SpecificDatumWriter;
import org.apache.avro.specific.SpecificRecord;

/**
 * Avro's binary encoding under the record's own schema: the same event always gives the same bytes,
 * whatever schema id or wire prefix it arrived with.
 */
final class AvroCanonicalForm implements CanonicalForm<Object> {

  @Override
  public byte[] of(Object value) {
    if (!(value instanceof SpecificRecord record)) {
      return new byte[0];
    }
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    BinaryEncoder encoder = EncoderFactory.get().binaryEncoder(out, null);
    try {
      new SpecificDatumWriter<SpecificRecord>(record.getSchema()).write(record, encoder);
      encoder.flush();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out.toByteArray();
  }
}
