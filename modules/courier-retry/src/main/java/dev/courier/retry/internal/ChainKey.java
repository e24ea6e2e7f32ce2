package dev.courier.retry.internal;

import java.util.Arrays;

/** A record key as a map key. */
public record ChainKey(byte[] bytes) {
  @Override
  public boolean equals(Object o) {
    return o instanceof ChainKey k && Arrays.equals(bytes, k.bytes);
  }

  @Override
  public int hashCode() {
    return Arrays.hashCode(bytes);
  }

  @Override
  public String toString() {
    return new String(bytes, java.nio.charset.StandardCharsets.UTF_8);
  }
}
