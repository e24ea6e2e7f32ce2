package dev.courier.schema;

import java.util.List;

/**
 * Outcome of a compatibility check.
 *
 * @param compatible whether the new schema may be registered under the level
 * @param messages one line per incompatibility, naming the rule, the version, the field location
 *     and the problem; empty when compatible
 */
public record CompatibilityResult(boolean compatible, List<String> messages) {

  public CompatibilityResult {
    messages = List.copyOf(messages);
    if (compatible && !messages.isEmpty()) {
      throw new IllegalArgumentException("a compatible result carries no incompatibilities");
    }
  }

  public static CompatibilityResult ok() {
    return new CompatibilityResult(true, List.of());
  }
}
