package dev.courier.idempotency;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/** SHA-256 fingerprints of canonical payloads. */
final class Fingerprints {

  private Fingerprints() {}

  static byte[] sha256(byte[] canonical) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(canonical);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JVM has SHA-256", e);
    }
  }

  /** The default for byte[] and String values; other types need an explicit canonical form. */
  static <V> CanonicalForm<V> rawOrText() {
    return value -> {
      if (value == null) {
        return new byte[0];
      }
      if (value instanceof byte[] bytes) {
        return bytes;
      }
      if (value instanceof String text) {
        return text.getBytes(StandardCharsets.UTF_8);
      }
      throw new IllegalStateException(
          "values of type "
              + value.getClass().getName()
              + " need a CanonicalForm (IdempotentHandler.Builder#canonicalForm) to fingerprint");
    };
  }
}
