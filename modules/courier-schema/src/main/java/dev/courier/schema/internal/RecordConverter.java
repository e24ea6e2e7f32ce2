package dev.courier.schema.internal;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.DecoderFactory;
import org.apache.avro.io.EncoderFactory;

/**
 * Turns a record of one schema into a generic record of another by Avro's schema resolution (write
 * with the source schema, read with the target as reader): missing fields take their defaults,
 * removed ones are dropped. Fails when the target cannot read the source.
 */
public final class RecordConverter {

  private RecordConverter() {}

  public static Object convert(
      Object datum,
      Schema source,
      Schema target,
      GenericData sourceModel,
      GenericData targetModel) {
    try {
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      BinaryEncoder encoder = EncoderFactory.get().directBinaryEncoder(out, null);
      new GenericDatumWriter<Object>(source, sourceModel).write(datum, encoder);
      encoder.flush();
      return new GenericDatumReader<Object>(source, target, targetModel)
          .read(null, DecoderFactory.get().binaryDecoder(out.toByteArray(), null));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
