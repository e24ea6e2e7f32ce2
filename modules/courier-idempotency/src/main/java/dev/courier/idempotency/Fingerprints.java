package dev.courier.idempotency;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/** SHA-256 fingerprints of canonical payloads. */
final class Fingerprints {

  /**
   * One digest per thread: {@code MessageDigest.getInstance} looks the algorithm up among the
   * security providers and instantiates it reflectively, which was a fifth of the CPU a batch of
   * keys cost. {@code digest} resets it for the next use.
   */
  private static final ThreadLocal<MessageDigest> SHA_256 =
      ThreadLocal.withInitial(
          () -> {
            try {
              return MessageDigest.getInstance("SHA-256");
            } catch (NoSuchAlgorithmException e) {
              throw new IllegalStateException("every JVM has SHA-256", e);
            }
          });

  private Fingerprints() {}

  static byte[] sha256(byte[] canonical) {
    return SHA_256.get().digest(canonical);
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
