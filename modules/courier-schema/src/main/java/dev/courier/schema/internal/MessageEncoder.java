package dev.courier.schema.internal;

import java.util.Arrays;
import org.apache.avro.io.BinaryData;
import org.apache.avro.io.BinaryEncoder;

/**
 * Avro's binary encoding written straight into one growable array, one message at a time, for a
 * serializer that returns each message as its own {@code byte[]}.
 *
 * <p>Avro's {@code BufferedBinaryEncoder} writes to an {@code OutputStream}: configured for each
 * record it allocated a sink and a channel around the stream, and its flush copied what it had
 * buffered into the stream (a {@code ByteArrayOutputStream} also synchronizes every call). Here the
 * array is the destination: reset, write the header and the datum, copy out once.
 *
 * <p>Not thread-safe: one per thread, reset for each message.
 */
public final class MessageEncoder extends BinaryEncoder {

  private static final int INITIAL_CAPACITY = 512;

  /**
   * A thread keeps its array between messages up to this size; one larger record does not pin its
   * size for the thread's life.
   */
  private static final int RETAINED_CAPACITY = 1 << 20;

  private byte[] buf = new byte[INITIAL_CAPACITY];
  private int pos;

  /** Empties the encoder for the next message. */
  public MessageEncoder reset() {
    if (buf.length > RETAINED_CAPACITY) {
      buf = new byte[INITIAL_CAPACITY];
    }
    pos = 0;
    return this;
  }

  /** The message written since the last {@link #reset}. */
  public byte[] toByteArray() {
    return Arrays.copyOf(buf, pos);
  }

  @Override
  public void writeBoolean(boolean b) {
    ensure(1);
    pos += BinaryData.encodeBoolean(b, buf, pos);
  }

  @Override
  public void writeInt(int n) {
    ensure(5);
    pos += BinaryData.encodeInt(n, buf, pos);
  }

  @Override
  public void writeLong(long n) {
    ensure(10);
    pos += BinaryData.encodeLong(n, buf, pos);
  }

  @Override
  public void writeFloat(float f) {
    ensure(4);
    pos += BinaryData.encodeFloat(f, buf, pos);
  }

  @Override
  public void writeDouble(double d) {
    ensure(8);
    pos += BinaryData.encodeDouble(d, buf, pos);
  }

  @Override
  public void writeFixed(byte[] bytes, int start, int len) {
    ensure(len);
    System.arraycopy(bytes, start, buf, pos, len);
    pos += len;
  }

  @Override
  protected void writeZero() {
    ensure(1);
    buf[pos++] = 0;
  }

  /** None: the array is the destination, nothing waits for a flush. */
  @Override
  public int bytesBuffered() {
    return 0;
  }

  @Override
  public void flush() {}

  private void ensure(int bytes) {
    if (bytes > buf.length - pos) {
      buf = Arrays.copyOf(buf, Math.max(pos + bytes, buf.length * 2));
    }
  }
}
