package dev.courier.schema.internal;

import java.nio.ByteBuffer;

/**
 * Confluent's wire format: magic byte 0, the schema id as a 4-byte big-endian int, then the Avro
 * binary encoding of the datum.
 */
public final class WireFormat {

  public static final byte MAGIC_BYTE = 0;
  public static final int HEADER_SIZE = 5;

  private WireFormat() {}

  /** Writes the header into the first five bytes of {@code target}. */
  public static void writeHeader(byte[] target, int schemaId) {
    target[0] = MAGIC_BYTE;
    ByteBuffer.wrap(target, 1, 4).putInt(schemaId);
  }

  public static int schemaId(byte[] data) {
    return (data[1] & 0xff) << 24 | (data[2] & 0xff) << 16 | (data[3] & 0xff) << 8 | data[4] & 0xff;
  }
}
