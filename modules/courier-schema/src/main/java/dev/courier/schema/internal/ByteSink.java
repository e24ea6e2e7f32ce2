package dev.courier.schema.internal;

import java.io.OutputStream;
import java.util.Arrays;

/**
 * A growable byte buffer for one thread's serializer. {@code ByteArrayOutputStream} synchronizes
 * every call, and without biased locking (JDK 15+) each of the four a record took (reset, header,
 * the encoder's flush, copy) was an atomic operation: together more than the serializer's other
 * work beside Avro's.
 */
public final class ByteSink extends OutputStream {

  private byte[] buffer;
  private int size;

  public ByteSink(int capacity) {
    buffer = new byte[capacity];
  }

  public void reset() {
    size = 0;
  }

  @Override
  public void write(int b) {
    ensure(size + 1);
    buffer[size++] = (byte) b;
  }

  @Override
  public void write(byte[] bytes, int offset, int length) {
    ensure(size + length);
    System.arraycopy(bytes, offset, buffer, size, length);
    size += length;
  }

  public byte[] toByteArray() {
    return Arrays.copyOf(buffer, size);
  }

  private void ensure(int capacity) {
    if (capacity > buffer.length) {
      buffer = Arrays.copyOf(buffer, Math.max(capacity, buffer.length * 2));
    }
  }
}
