package dev.courier.testkit;

import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.Locale;

/**
 * Names that do not collide between tests sharing one broker and one database server. Topic and
 * group names keep the readable prefix; PostgreSQL identifiers are lower case with underscores and
 * fit its 63-character limit.
 */
public final class UniqueNames {

  private static final SecureRandom RANDOM = new SecureRandom();
  private static final int MAX_IDENTIFIER = 63;

  private UniqueNames() {}

  /** A topic name such as {@code orders-3f9a1c2e}. */
  public static String topic(String prefix) {
    return kafkaName(prefix);
  }

  /** A consumer group id such as {@code billing-3f9a1c2e}. */
  public static String group(String prefix) {
    return kafkaName(prefix);
  }

  /** A database name such as {@code outbox_it_3f9a1c2e}. */
  public static String database(String prefix) {
    return pgIdentifier(prefix);
  }

  /** A replication slot or publication name such as {@code courier_3f9a1c2e}. */
  public static String slot(String prefix) {
    return pgIdentifier(prefix);
  }

  private static String kafkaName(String prefix) {
    String clean = prefix.replaceAll("[^A-Za-z0-9._-]", "-");
    return clean + "-" + suffix();
  }

  private static String pgIdentifier(String prefix) {
    String clean = prefix.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9_]", "_");
    if (clean.isEmpty() || !Character.isLetter(clean.charAt(0))) {
      clean = "t_" + clean;
    }
    String suffix = "_" + suffix();
    int room = MAX_IDENTIFIER - suffix.length();
    return (clean.length() > room ? clean.substring(0, room) : clean) + suffix;
  }

  private static String suffix() {
    byte[] bytes = new byte[4];
    RANDOM.nextBytes(bytes);
    return HexFormat.of().formatHex(bytes);
  }
}
