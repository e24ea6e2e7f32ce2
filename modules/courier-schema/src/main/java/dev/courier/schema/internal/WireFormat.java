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
    return schemaId(data, 0);
  }

  /** The schema id of the message that starts at {@code offset}. */
  public static int schemaId(byte[] data, int offset) {
    return (data[offset + 1] & 0xff) << 24
        | (data[offset + 2] & 0xff) << 16
        | (data[offset + 3] & 0xff) << 8
        | data[offset + 4] & 0xff;
  }
}
