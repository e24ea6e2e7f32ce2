package dev.courier.retry.internal;

import java.util.Arrays;

/**
 * A record key as a map key. Its hash is computed once: key order looks every main-topic record's
 * key up in several maps, and hashing its bytes at each look-up showed in the loop's profile.
 */
public final class ChainKey {

  private final byte[] bytes;
  private final int hash;

  public ChainKey(byte[] bytes) {
    this.bytes = bytes;
    this.hash = Arrays.hashCode(bytes);
  }

  public byte[] bytes() {
    return bytes;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof ChainKey k && hash == k.hash && Arrays.equals(bytes, k.bytes);
  }

  @Override
  public int hashCode() {
    return hash;
  }

  @Override
  public String toString() {
    return new String(bytes, java.nio.charset.StandardCharsets.UTF_8);
  }
}
