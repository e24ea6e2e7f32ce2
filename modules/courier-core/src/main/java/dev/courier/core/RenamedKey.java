package dev.courier.core;

import java.util.Objects;

/**
 * A setting that had another name: the old name is still accepted, with a warning naming the new
 * one, until the release {@code removedIn}; docs/configuration.md lists every one.
 *
 * @param oldName the name accepted for now
 * @param newName the name to use; null when the setting goes away without a successor
 * @param removedIn the release that stops accepting {@code oldName}
 * @param note what to do instead, when there is no new name (or what changed with it)
 */
public record RenamedKey(String oldName, String newName, String removedIn, String note) {

  public RenamedKey {
    Objects.requireNonNull(oldName, "oldName");
    Objects.requireNonNull(removedIn, "removedIn");
  }

  /** The release every name deprecated now is removed in. */
  public static final String NEXT_BREAKING_RELEASE = "0.3.0";

  /** {@code oldName} is now {@code newName}. */
  public static RenamedKey renamed(String oldName, String newName) {
    return new RenamedKey(oldName, newName, NEXT_BREAKING_RELEASE, null);
  }

  /** {@code oldName} goes away; {@code note} says what replaces it. */
  public static RenamedKey retired(String oldName, String note) {
    return new RenamedKey(oldName, null, NEXT_BREAKING_RELEASE, note);
  }

  /** The warning logged when a configuration uses the old name. */
  public String warning() {
    return "'"
        + oldName
        + "' is deprecated and accepted until Courier "
        + removedIn
        + ": "
        + (newName != null ? "use '" + newName + "'" : note);
  }
}
