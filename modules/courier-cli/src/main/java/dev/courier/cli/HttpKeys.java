package dev.courier.cli;

import java.util.Base64;

/**
 * Record keys and operation keys are bytes; HTTP header values are visible ASCII. The default
 * handler sends a key as it is when it is visible ASCII (the common case: ids, UUIDs), and
 * otherwise base64url without padding, saying so:
 *
 * <ul>
 *   <li>{@code Courier-Key}: the record key; with {@code Courier-Key-Encoding: base64url} when
 *       encoded (binary keys such as Avro's, keys beyond ASCII such as {@code 北京} or {@code café},
 *       keys with spaces, the empty key). A null key sends neither header.
 *   <li>{@code Idempotency-Key}: the operation key as it is when visible ASCII, else {@code b64:}
 *       followed by its base64url form. The same bytes always give the same value, and no two keys
 *       give the same value (a plain key starting with {@code b64:} is encoded too).
 * </ul>
 */
final class HttpKeys {

  static final String KEY = "Courier-Key";
  static final String KEY_ENCODING = "Courier-Key-Encoding";
  static final String BASE64URL = "base64url";
  static final String IDEMPOTENCY_KEY = "Idempotency-Key";
  private static final String ENCODED_PREFIX = "b64:";

  private HttpKeys() {}

  /** Whether the bytes can go in a header as they are: visible ASCII, at least one byte. */
  static boolean plain(byte[] key) {
    if (key.length == 0) {
      return false;
    }
    for (byte b : key) {
      if (b < 0x21 || b > 0x7e) {
        return false;
      }
    }
    return true;
  }

  static String base64url(byte[] bytes) {
    return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
  }

  /** The {@code Idempotency-Key} value for an operation key's bytes. */
  static String idempotencyKey(byte[] operationKey) {
    if (plain(operationKey) && !startsWithPrefix(operationKey)) {
      return new String(operationKey, java.nio.charset.StandardCharsets.US_ASCII);
    }
    return ENCODED_PREFIX + base64url(operationKey);
  }

  private static boolean startsWithPrefix(byte[] key) {
    if (key.length < ENCODED_PREFIX.length()) {
      return false;
    }
    for (int i = 0; i < ENCODED_PREFIX.length(); i++) {
      if (key[i] != ENCODED_PREFIX.charAt(i)) {
        return false;
      }
    }
    return true;
  }
}
