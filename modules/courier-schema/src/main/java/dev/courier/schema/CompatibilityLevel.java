package dev.courier.schema;

import java.util.Locale;

/** Compatibility modes of a subject, with Confluent Schema Registry's names and meaning. */
public enum CompatibilityLevel {
  /** Anything goes. */
  NONE(false, false, false),
  /** The new schema reads data written with the previous one (consumers upgrade first). */
  BACKWARD(true, false, false),
  /** BACKWARD against every earlier version. */
  BACKWARD_TRANSITIVE(true, false, true),
  /** The previous schema reads data written with the new one (producers upgrade first). */
  FORWARD(false, true, false),
  /** FORWARD against every earlier version. */
  FORWARD_TRANSITIVE(false, true, true),
  /** Both BACKWARD and FORWARD against the previous version. */
  FULL(true, true, false),
  /** Both against every earlier version. */
  FULL_TRANSITIVE(true, true, true);

  private final boolean backward;
  private final boolean forward;
  private final boolean transitive;

  CompatibilityLevel(boolean backward, boolean forward, boolean transitive) {
    this.backward = backward;
    this.forward = forward;
    this.transitive = transitive;
  }

  /** Whether the new schema must read data of earlier versions. */
  public boolean backward() {
    return backward;
  }

  /** Whether earlier versions must read data of the new schema. */
  public boolean forward() {
    return forward;
  }

  /** Whether every earlier version is checked, not only the latest. */
  public boolean transitive() {
    return transitive;
  }

  /**
   * Parses a mode name, case-insensitively.
   *
   * @throws IllegalArgumentException naming the value and the accepted names
   */
  public static CompatibilityLevel parse(String value) {
    try {
      return valueOf(value.trim().toUpperCase(Locale.ROOT));
    } catch (IllegalArgumentException | NullPointerException e) {
      throw new IllegalArgumentException(
          "'"
              + value
              + "' is not a compatibility level; use one of NONE, BACKWARD, BACKWARD_TRANSITIVE,"
              + " FORWARD, FORWARD_TRANSITIVE, FULL, FULL_TRANSITIVE",
          e);
    }
  }
}
