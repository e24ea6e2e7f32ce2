package dev.courier.testkit;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Checks that an endpoint saw each ordering key's records in their main-topic order: a record's
 * first call comes after the record before it of the same key was resolved (its first success, its
 * first refusal, or its last allowed attempt). Duplicates after a record was resolved are not
 * violations; they are counted apart.
 */
public final class KeyOrderCheck {

  private KeyOrderCheck() {}

  /** What the check found: the violations, each described, and how many calls repeated. */
  public record Result(List<String> violations, int repeatedSuccesses) {}

  /**
   * @param log the endpoint's calls in order
   * @param recordsByKey per ordering key, its records' operation keys in main-topic order
   * @param maxAttempts {@code retry.max.attempts}: a record failing transiently that often is
   *     resolved (dead-lettered) at its last attempt
   */
  public static Result check(
      List<RecordingEndpoint.Call> log, Map<String, List<String>> recordsByKey, int maxAttempts) {
    Map<String, Integer> firstCall = new HashMap<>();
    Map<String, Integer> resolved = new HashMap<>();
    Map<String, Integer> successes = new HashMap<>();
    for (int i = 0; i < log.size(); i++) {
      RecordingEndpoint.Call c = log.get(i);
      firstCall.putIfAbsent(c.key(), i);
      boolean success = c.status() / 100 == 2;
      if (success) {
        successes.merge(c.key(), 1, Integer::sum);
      }
      if (success || c.status() / 100 == 4 || c.call() >= maxAttempts) {
        resolved.putIfAbsent(c.key(), i);
      }
    }
    List<String> violations = new ArrayList<>();
    recordsByKey.forEach(
        (key, records) -> {
          for (int i = 1; i < records.size(); i++) {
            String before = records.get(i - 1);
            String after = records.get(i);
            Integer first = firstCall.get(after);
            if (first == null) {
              continue; // never called (parked behind a dead letter, or refused before a call)
            }
            int done = resolved.getOrDefault(before, lastCall(log, before));
            if (first < done) {
              violations.add(
                  key
                      + ": "
                      + after
                      + " first called at #"
                      + first
                      + " before "
                      + before
                      + " was resolved at #"
                      + done);
            }
          }
        });
    int repeated = successes.values().stream().mapToInt(n -> n - 1).sum();
    return new Result(violations, repeated);
  }

  private static int lastCall(List<RecordingEndpoint.Call> log, String key) {
    for (int i = log.size() - 1; i >= 0; i--) {
      if (log.get(i).key().equals(key)) {
        return i;
      }
    }
    return -1;
  }
}
