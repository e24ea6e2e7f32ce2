package dev.courier.idempotency;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/**
 * The bytes a payload is fingerprinted from. Two payloads that mean the same must give the same
 * bytes, or a harmless redelivery would look like a reused key: JSON is normalised (keys sorted, no
 * whitespace) before hashing.
 */
@FunctionalInterface
public interface CanonicalForm<V> {

  byte[] of(V value);

  /** The value's bytes as they are (byte[] payloads whose encoding is already canonical). */
  static CanonicalForm<byte[]> bytes() {
    return value -> value == null ? new byte[0] : value;
  }

  /** A string's UTF-8 bytes. */
  static CanonicalForm<String> utf8() {
    return value -> value == null ? new byte[0] : value.getBytes(StandardCharsets.UTF_8);
  }

  /** JSON text with object keys sorted and whitespace removed. */
  static CanonicalForm<String> json() {
    ObjectMapper mapper =
        JsonMapper.builder().enable(SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS).build();
    return value -> {
      if (value == null) {
        return new byte[0];
      }
      try {
        JsonNode tree = mapper.readTree(value);
        Object sorted = mapper.treeToValue(tree, Object.class);
        return mapper.writeValueAsBytes(sorted);
      } catch (IOException e) {
        throw new UncheckedIOException("payload is not JSON: " + e.getMessage(), e);
      }
    };
  }
}
