package dev.courier.retry.internal;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Optional;

/** A header that does not say what it must: the record is dead-lettered with this. */
public record Malformed(String header, String value, String problem) implements LadderRead {
  private static final int SHOWN_CHARS = 200;

  /** E.g. {@code header courier.attempt='abc': not a whole number >= 1}. */
  public String describe() {
    return "header " + header + "=" + value + ": " + problem;
  }

  static Malformed of(String header, byte[] raw, String problem) {
    return new Malformed(header, show(raw), problem);
  }

  /** The value quoted, non-printable bytes as \xNN, cut to 200 characters. */
  private static String show(byte[] raw) {
    StringBuilder out = new StringBuilder("'");
    String text = utf8(raw).orElse(null);
    if (text != null) {
      text.codePoints()
          .limit(SHOWN_CHARS)
          .forEach(
              c -> {
                if (Character.isISOControl(c)) {
                  out.append(String.format("\\x%02x", c));
                } else {
                  out.appendCodePoint(c);
                }
              });
    } else {
      for (int i = 0; i < Math.min(raw.length, SHOWN_CHARS); i++) {
        int b = raw[i] & 0xff;
        if (b >= 0x20 && b < 0x7f) {
          out.append((char) b);
        } else {
          out.append(String.format("\\x%02x", b));
        }
      }
    }
    int length = text != null ? text.codePointCount(0, text.length()) : raw.length;
    return out.append(length > SHOWN_CHARS ? "...' (" + length + " long)" : "'").toString();
  }

  /** Strict UTF-8: empty when the bytes are not valid UTF-8. */
  static Optional<String> utf8(byte[] raw) {
    if (ascii(raw)) {
      // What the ladder reads is almost always ASCII (numbers, topic names): read on every record
      // of a tier, a new strict decoder and its buffer per header were a tenth of the loop's work.
      return Optional.of(new String(raw, StandardCharsets.US_ASCII));
    }
    try {
      return Optional.of(
          StandardCharsets.UTF_8
              .newDecoder()
              .onMalformedInput(CodingErrorAction.REPORT)
              .onUnmappableCharacter(CodingErrorAction.REPORT)
              .decode(ByteBuffer.wrap(raw))
              .toString());
    } catch (CharacterCodingException e) {
      return Optional.empty();
    }
  }

  private static boolean ascii(byte[] raw) {
    for (byte b : raw) {
      if (b < 0) {
        return false;
      }
    }
    return true;
  }
}
