package dev.courier.schema.internal;

import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.function.LongToIntFunction;
import org.apache.avro.AvroRuntimeException;
import org.apache.avro.InvalidNumberEncodingException;
import org.apache.avro.Schema;
import org.apache.avro.SystemLimitException;
import org.apache.avro.io.Decoder;
import org.apache.avro.util.Utf8;

/**
 * Avro's binary encoding read from one message that lies whole in a byte array, for a consumer that
 * decodes untrusted records one after another.
 *
 * <p>Avro's {@code BinaryDecoder} is built for streams: it allocates a byte source per message,
 * copies the message's last bytes into a fresh buffer whenever a number is read near the end, and
 * allocates a string, bytes value or collection at the length the data declares before it finds out
 * whether that many bytes follow. A ten-byte record declaring a 1.5 GB string made it allocate 1.5
 * GB (an {@link OutOfMemoryError} in a 512 MiB consumer, on every restart). This decoder is reset
 * for each message without allocating, reads numbers in place, and checks every declared length
 * against the bytes that remain before it allocates: such a record ends in an {@link EOFException},
 * as a truncated one does. Otherwise it reads exactly what {@code BinaryDecoder} reads, with Avro's
 * own limits ({@link SystemLimitException}).
 *
 * <p>Not thread-safe: one per thread, reset for each message.
 */
public final class MessageDecoder extends Decoder {

  private static final int MAX_INT_BYTES = 5;
  private static final int MAX_LONG_BYTES = 10;

  private byte[] buf;
  private int pos;
  private int limit;
  private boolean arrayItemsTakeBytes;
  private long collectionCount;

  /**
   * Reads the message in {@code data[offset, offset + length)}. {@code arrayItemsTakeBytes} (from
   * {@link #arrayItemsTakeBytes(Schema)} of the writer schema) lets an array's item count be
   * checked against the bytes left, as a map's always is.
   */
  public MessageDecoder reset(byte[] data, int offset, int length, boolean arrayItemsTakeBytes) {
    if (offset < 0 || length < 0 || offset > data.length - length) {
      throw new IndexOutOfBoundsException(
          "[" + offset + ", " + offset + " + " + length + ") of " + data.length + " bytes");
    }
    this.buf = data;
    this.pos = offset;
    this.limit = offset + length;
    this.arrayItemsTakeBytes = arrayItemsTakeBytes;
    this.collectionCount = 0;
    return this;
  }

  /**
   * Forgets the message. A decoder outlives its message (a thread keeps one), and the message is
   * usually a view into a fetched batch of up to {@code fetch.max.bytes}, which it must not keep
   * alive until that thread's next record.
   */
  public void clear() {
    buf = null;
    pos = 0;
    limit = 0;
  }

  /**
   * Whether every item of every array the schema can hold takes at least one byte, so that an array
   * block cannot hold more items than bytes remain. Items that encode in no bytes (null, a
   * zero-size fixed, a record of such fields) make a long array of them legitimately tiny.
   */
  public static boolean arrayItemsTakeBytes(Schema schema) {
    return arrayItemsTakeBytes(schema, new IdentityHashMap<>());
  }

  private static boolean arrayItemsTakeBytes(Schema schema, Map<Schema, Boolean> seen) {
    if (seen.putIfAbsent(schema, Boolean.TRUE) != null) {
      return true;
    }
    switch (schema.getType()) {
      case ARRAY:
        return !canBeEmpty(schema.getElementType(), new IdentityHashMap<>())
            && arrayItemsTakeBytes(schema.getElementType(), seen);
      case MAP:
        return arrayItemsTakeBytes(schema.getValueType(), seen);
      case UNION:
        return schema.getTypes().stream().allMatch(t -> arrayItemsTakeBytes(t, seen));
      case RECORD:
        return schema.getFields().stream().allMatch(f -> arrayItemsTakeBytes(f.schema(), seen));
      default:
        return true;
    }
  }

  /** Whether a value of the schema can encode in zero bytes. */
  private static boolean canBeEmpty(Schema schema, Map<Schema, Boolean> visiting) {
    switch (schema.getType()) {
      case NULL:
        return true;
      case FIXED:
        return schema.getFixedSize() == 0;
      case RECORD:
        // A record that contains itself other than through a union or collection has no finite
        // encoding; counting it as non-empty is safe.
        if (visiting.putIfAbsent(schema, Boolean.TRUE) != null) {
          return false;
        }
        boolean empty = schema.getFields().stream().allMatch(f -> canBeEmpty(f.schema(), visiting));
        visiting.remove(schema);
        return empty;
      default:
        return false;
    }
  }

  @Override
  public void readNull() {}

  @Override
  public boolean readBoolean() throws IOException {
    require(1);
    // As BinaryDecoder: 1 is true, any other byte false.
    return buf[pos++] == 1;
  }

  @Override
  public int readInt() throws IOException {
    int raw = (int) readVarLong(MAX_INT_BYTES, "Invalid int encoding");
    return (raw >>> 1) ^ -(raw & 1);
  }

  @Override
  public long readLong() throws IOException {
    long raw = readVarLong(MAX_LONG_BYTES, "Invalid long encoding");
    return (raw >>> 1) ^ -(raw & 1);
  }

  /** A variable-length number of at most {@code maxBytes}, before zig-zag decoding. */
  private long readVarLong(int maxBytes, String invalid) throws IOException {
    int p = pos;
    long value = 0;
    for (int shift = 0, i = 0; i < maxBytes; i++, shift += 7) {
      if (p >= limit) {
        throw new EOFException();
      }
      byte b = buf[p++];
      value |= (long) (b & 0x7f) << shift;
      if (b >= 0) {
        pos = p;
        return value;
      }
    }
    throw new InvalidNumberEncodingException(invalid);
  }

  @Override
  public float readFloat() throws IOException {
    return Float.intBitsToFloat(readLittleEndian(4));
  }

  @Override
  public double readDouble() throws IOException {
    long low = readLittleEndian(4) & 0xffffffffL;
    long high = readLittleEndian(4);
    return Double.longBitsToDouble(low | high << 32);
  }

  private int readLittleEndian(int bytes) throws IOException {
    require(bytes);
    int n = 0;
    for (int i = 0; i < bytes; i++) {
      n |= (buf[pos++] & 0xff) << (8 * i);
    }
    return n;
  }

  @Override
  public Utf8 readString(Utf8 old) throws IOException {
    int length = readLength(SystemLimitException::checkMaxStringLength);
    Utf8 result = old != null ? old : new Utf8();
    result.setByteLength(length);
    System.arraycopy(buf, pos, result.getBytes(), 0, length);
    pos += length;
    return result;
  }

  @Override
  public String readString() throws IOException {
    int length = readLength(SystemLimitException::checkMaxStringLength);
    if (length == 0) {
      return "";
    }
    String result = new String(buf, pos, length, StandardCharsets.UTF_8);
    pos += length;
    return result;
  }

  @Override
  public void skipString() throws IOException {
    skip(readLong());
  }

  @Override
  public ByteBuffer readBytes(ByteBuffer old) throws IOException {
    int length = readLength(SystemLimitException::checkMaxBytesLength);
    ByteBuffer result;
    if (old != null && length <= old.capacity()) {
      result = old;
      result.clear();
    } else {
      result = ByteBuffer.allocate(length);
    }
    System.arraycopy(buf, pos, result.array(), result.arrayOffset() + result.position(), length);
    pos += length;
    result.limit(length);
    return result;
  }

  @Override
  public void skipBytes() throws IOException {
    skip(readLong());
  }

  @Override
  public void readFixed(byte[] bytes, int start, int length) throws IOException {
    require(length);
    System.arraycopy(buf, pos, bytes, start, length);
    pos += length;
  }

  @Override
  public void skipFixed(int length) throws IOException {
    skip(length);
  }

  @Override
  public int readEnum() throws IOException {
    return readInt();
  }

  @Override
  public int readIndex() throws IOException {
    return readInt();
  }

  @Override
  public long readArrayStart() throws IOException {
    return firstBlock(arrayItemsTakeBytes);
  }

  @Override
  public long arrayNext() throws IOException {
    return nextBlock(arrayItemsTakeBytes);
  }

  @Override
  public long skipArray() throws IOException {
    return skipItems(arrayItemsTakeBytes);
  }

  @Override
  public long readMapStart() throws IOException {
    return firstBlock(true);
  }

  /** Every map entry takes at least a byte: its key's length. */
  @Override
  public long mapNext() throws IOException {
    return nextBlock(true);
  }

  @Override
  public long skipMap() throws IOException {
    return skipItems(true);
  }

  private long firstBlock(boolean itemsTakeBytes) throws IOException {
    collectionCount = 0;
    return nextBlock(itemsTakeBytes);
  }

  /** The next block's item count, the items of all blocks so far held to Avro's limit. */
  private long nextBlock(boolean itemsTakeBytes) throws IOException {
    long items = readItemCount(itemsTakeBytes);
    try {
      collectionCount = SystemLimitException.checkMaxCollectionLength(collectionCount, items);
    } catch (UnsupportedOperationException e) {
      // Avro's "larger than a Java array" is, in a message, malformed data like any other.
      throw new AvroRuntimeException(e.getMessage(), e);
    }
    return items;
  }

  /**
   * Skips blocks written with their size in bytes; returns the item count of the first block
   * without one (0 at the end), whose items the caller skips one by one.
   */
  private long skipItems(boolean itemsTakeBytes) throws IOException {
    while (true) {
      long count = readLong();
      if (count >= 0) {
        return checkItems(count, itemsTakeBytes);
      }
      skip(readLong());
    }
  }

  /** A block's count; a negative one is followed by the block's size in bytes, unused here. */
  private long readItemCount(boolean itemsTakeBytes) throws IOException {
    long count = readLong();
    if (count < 0) {
      readLong();
      count = -count;
    }
    return checkItems(count, itemsTakeBytes);
  }

  private long checkItems(long count, boolean itemsTakeBytes) throws IOException {
    if (count < 0) {
      throw new AvroRuntimeException("Malformed data. Length is negative: " + count);
    }
    if (itemsTakeBytes && count > limit - pos) {
      throw new EOFException(
          "a block of " + count + " items declared with " + (limit - pos) + " bytes left");
    }
    return count;
  }

  /**
   * A string's or bytes' length, checked against the bytes left before Avro's limits: a declared
   * length beyond the message is truncation, whatever its size.
   */
  private int readLength(LongToIntFunction avroLimit) throws IOException {
    long length = readLong();
    require(length);
    return avroLimit.applyAsInt(length);
  }

  private void skip(long length) throws IOException {
    if (length < 0) {
      throw new AvroRuntimeException("Malformed data. Length is negative: " + length);
    }
    require(length);
    pos += (int) length;
  }

  private void require(long bytes) throws EOFException {
    if (bytes > limit - pos) {
      throw new EOFException(bytes + " bytes declared, " + (limit - pos) + " left");
    }
  }
}
