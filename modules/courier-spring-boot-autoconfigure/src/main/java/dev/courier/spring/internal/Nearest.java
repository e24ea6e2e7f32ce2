package dev.courier.spring.internal;

import java.util.Collection;
import java.util.Optional;

/** The known key a mistyped one most likely meant: the closest by edit distance, if close. */
final class Nearest {

  private Nearest() {}

  static Optional<String> of(String typed, Collection<String> known) {
    String best = null;
    int bestDistance = Integer.MAX_VALUE;
    for (String k : known) {
      int d = distance(typed, k);
      if (d < bestDistance) {
        best = k;
        bestDistance = d;
      }
    }
    // A typo, a swapped or missing letter or two; not a different setting.
    return bestDistance <= Math.max(2, typed.length() / 6)
        ? Optional.ofNullable(best)
        : Optional.empty();
  }

  /** Levenshtein distance. */
  static int distance(String a, String b) {
    int[] previous = new int[b.length() + 1];
    int[] current = new int[b.length() + 1];
    for (int j = 0; j <= b.length(); j++) {
      previous[j] = j;
    }
    for (int i = 1; i <= a.length(); i++) {
      current[0] = i;
      for (int j = 1; j <= b.length(); j++) {
        int substitution = previous[j - 1] + (a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1);
        current[j] = Math.min(substitution, Math.min(previous[j] + 1, current[j - 1] + 1));
      }
      int[] swap = previous;
      previous = current;
      current = swap;
    }
    return previous[b.length()];
  }
}
