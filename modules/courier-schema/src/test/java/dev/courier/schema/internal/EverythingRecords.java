package dev.courier.schema.internal;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.util.Utf8;

/** Random records of a schema that holds every Avro type, for comparing coders with Avro's. */
final class EverythingRecords {

  static final Schema SCHEMA =
      new Schema.Parser()
          .parse(
              """
              {"type": "record", "name": "Everything", "fields": [
                {"name": "n", "type": "null"},
                {"name": "b", "type": "boolean"},
                {"name": "i", "type": "int"},
                {"name": "l", "type": "long"},
                {"name": "f", "type": "float"},
                {"name": "d", "type": "double"},
                {"name": "s", "type": "string"},
                {"name": "by", "type": "bytes"},
                {"name": "fx", "type": {"type": "fixed", "name": "Six", "size": 6}},
                {"name": "e", "type": {"type": "enum", "name": "E", "symbols": ["A", "B", "C"]}},
                {"name": "ints", "type": {"type": "array", "items": "int"}},
                {"name": "lines", "type": {"type": "array", "items": {"type": "record",
                  "name": "Line", "fields": [
                    {"name": "sku", "type": "string"},
                    {"name": "qty", "type": "int"},
                    {"name": "note", "type": ["null", "string"]}]}}},
                {"name": "m", "type": {"type": "map", "values": "long"}},
                {"name": "u", "type": ["null", "long", "string", "Line"]},
                {"name": "nested", "type": {"type": "record", "name": "Inner", "fields": [
                  {"name": "dec", "type": {"type": "bytes", "logicalType": "decimal",
                    "precision": 10, "scale": 2}},
                  {"name": "ts", "type": {"type": "long", "logicalType": "timestamp-millis"}},
                  {"name": "nulls", "type": {"type": "array", "items": "null"}}]}}
              ]}
              """);

  private final Random random;

  EverythingRecords(long seed) {
    this.random = new Random(seed);
  }

  /** The next random record. */
  GenericData.Record next() {
    GenericData.Record r = new GenericData.Record(SCHEMA);
    r.put("n", null);
    r.put("b", random.nextBoolean());
    r.put("i", random.nextBoolean() ? random.nextInt() : random.nextInt(100) - 50);
    r.put("l", random.nextBoolean() ? random.nextLong() : (long) random.nextInt(1000));
    r.put("f", random.nextFloat());
    r.put("d", random.nextInt(50) == 0 ? Double.NaN : random.nextGaussian());
    r.put("s", new Utf8(randomString()));
    r.put("by", ByteBuffer.wrap(randomBytes(random.nextInt(40))));
    r.put("fx", new GenericData.Fixed(SCHEMA.getField("fx").schema(), randomBytes(6)));
    Schema e = SCHEMA.getField("e").schema();
    r.put("e", new GenericData.EnumSymbol(e, e.getEnumSymbols().get(random.nextInt(3))));
    List<Integer> ints = new ArrayList<>();
    for (int k = random.nextInt(30); k > 0; k--) {
      ints.add(random.nextInt());
    }
    r.put("ints", new GenericData.Array<>(SCHEMA.getField("ints").schema(), ints));
    Schema lineSchema = SCHEMA.getField("lines").schema().getElementType();
    List<GenericData.Record> lines = new ArrayList<>();
    for (int k = random.nextInt(5); k > 0; k--) {
      lines.add(line(lineSchema));
    }
    r.put("lines", new GenericData.Array<>(SCHEMA.getField("lines").schema(), lines));
    Map<Utf8, Long> m = new HashMap<>();
    for (int k = random.nextInt(6); k > 0; k--) {
      m.put(new Utf8(randomString()), random.nextLong());
    }
    r.put("m", m);
    Object[] unionValues = {null, random.nextLong(), new Utf8(randomString()), line(lineSchema)};
    r.put("u", unionValues[random.nextInt(unionValues.length)]);
    Schema innerSchema = SCHEMA.getField("nested").schema();
    GenericData.Record inner = new GenericData.Record(innerSchema);
    inner.put("dec", ByteBuffer.wrap(randomBytes(1 + random.nextInt(4))));
    inner.put("ts", random.nextLong());
    List<Object> nulls = new ArrayList<>();
    for (int k = random.nextInt(4); k > 0; k--) {
      nulls.add(null);
    }
    inner.put("nulls", new GenericData.Array<>(innerSchema.getField("nulls").schema(), nulls));
    r.put("nested", inner);
    return r;
  }

  private GenericData.Record line(Schema lineSchema) {
    GenericData.Record line = new GenericData.Record(lineSchema);
    line.put("sku", new Utf8(randomString()));
    line.put("qty", random.nextInt(1 << 20));
    line.put("note", random.nextBoolean() ? null : new Utf8(randomString()));
    return line;
  }

  /** Up to 20 code points, ASCII, accented, CJK and outside the BMP. */
  private String randomString() {
    int[] alphabet = {'a', 'Z', '7', ' ', 'é', 'ß', '€', '中', 0x1F600};
    StringBuilder s = new StringBuilder();
    for (int k = random.nextInt(21); k > 0; k--) {
      s.appendCodePoint(alphabet[random.nextInt(alphabet.length)]);
    }
    return s.toString();
  }

  private byte[] randomBytes(int n) {
    byte[] bytes = new byte[n];
    random.nextBytes(bytes);
    return bytes;
  }
}
