package dev.courier.testkit;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Checks per-key order as {@code retry.ordering=key} promises it, on any run, from the endpoint's
 * log of calls and, where given, what the DLT holds. Two properties:
 *
 * <ul>
 *   <li><b>first handling</b>: no record of a key is first handed to the handler before every
 *       earlier record of the key is resolved (its first success, its first refusal, or its last
 *       allowed attempt; a record never called was parked or refused unexecuted);
 *   <li><b>final state</b>: the last successful handling of each record of a key comes in the key's
 *       production order. A crash may repeat records (delivery is at least once), but a repeat
 *       replays the key's records in their order, so the key's final state is its latest record's.
 * </ul>
 *
 * And, with the DLT given: no record is parked after its last handling succeeded, nor parked twice.
 * A record whose handling succeeded but whose acknowledgement a crash lost is handled again (at
 * least once); when that repeat fails for good the record is parked with its last handling a
 * failure. That is not a violation (the DLT holds what the last handling said) but it is counted: a
 * handler idempotent by operation key, as Courier asks, answers the repeat with success.
 */
public final class KeyOrderCheck {

  private KeyOrderCheck() {}

  /**
   * What the check found: each property's violations, described, and how many successful calls
   * repeated an earlier success (at least once allows them; they are counted apart).
   */
  public record Result(
      List<String> firstHandling,
      List<String> finalState,
      List<String> parking,
      int repeatedSuccesses,
      int parkedAfterRepeat) {

    /** Every violation of every property checked. */
    public List<String> violations() {
      List<String> all = new ArrayList<>(firstHandling);
      all.addAll(finalState);
      all.addAll(parking);
      return all;
    }
  }

  /**
   * @param log the endpoint's calls in order
   * @param recordsByKey per ordering key, its records' operation keys in main-topic order
   * @param maxAttempts {@code retry.max.attempts}: a record failing transiently that often is
   *     resolved (dead-lettered) at its last attempt
   */
  public static Result check(
      List<RecordingEndpoint.Call> log, Map<String, List<String>> recordsByKey, int maxAttempts) {
    return check(log, recordsByKey, maxAttempts, null);
  }

  /**
   * As {@link #check(List, Map, int)}, and with {@code deadLettered} (the operation key of every
   * dead letter, as often as the DLT holds it) also that no record is parked after its last
   * handling succeeded, nor parked twice; records parked after a failed repeat of a success are
   * counted in {@link Result#parkedAfterRepeat()}.
   */
  public static Result check(
      List<RecordingEndpoint.Call> log,
      Map<String, List<String>> recordsByKey,
      int maxAttempts,
      List<String> deadLettered) {
    Map<String, Integer> firstCall = new HashMap<>();
    Map<String, Integer> resolved = new HashMap<>();
    Map<String, Integer> lastSuccess = new HashMap<>();
    Map<String, Integer> successes = new HashMap<>();
    Map<String, Boolean> lastSucceeded = new HashMap<>();
    for (int i = 0; i < log.size(); i++) {
      RecordingEndpoint.Call c = log.get(i);
      firstCall.putIfAbsent(c.key(), i);
      boolean success = c.status() / 100 == 2;
      lastSucceeded.put(c.key(), success);
      if (success) {
        successes.merge(c.key(), 1, Integer::sum);
        lastSuccess.put(c.key(), i);
      }
      if (success || c.status() / 100 == 4 || c.call() >= maxAttempts) {
        resolved.putIfAbsent(c.key(), i);
      }
    }
    List<String> first = new ArrayList<>();
    List<String> last = new ArrayList<>();
    recordsByKey.forEach(
        (key, records) -> {
          for (int i = 1; i < records.size(); i++) {
            String before = records.get(i - 1);
            String after = records.get(i);
            Integer called = firstCall.get(after);
            if (called == null) {
              continue; // never called (parked behind a dead letter, or refused before a call)
            }
            int done = resolved.getOrDefault(before, lastCall(log, before));
            if (called < done) {
              first.add(
                  key
                      + ": "
                      + after
                      + " first called at #"
                      + called
                      + " before "
                      + before
                      + " was resolved at #"
                      + done);
            }
          }
          String previous = null;
          for (String record : records) {
            Integer at = lastSuccess.get(record);
            if (at == null) {
              continue; // never succeeded: it is not part of the key's final state
            }
            if (previous != null && at < lastSuccess.get(previous)) {
              last.add(
                  key
                      + ": "
                      + record
                      + " last succeeded at #"
                      + at
                      + ", before "
                      + previous
                      + " (earlier in the key) last succeeded at #"
                      + lastSuccess.get(previous)
                      + ": the key's final state is not its latest record's");
            }
            previous = record;
          }
        });
    List<String> parking = new ArrayList<>();
    int[] parkedAfterRepeat = {0};
    if (deadLettered != null) {
      Map<String, Integer> letters = new HashMap<>();
      deadLettered.forEach(k -> letters.merge(k, 1, Integer::sum));
      letters.forEach(
          (k, n) -> {
            if (n > 1) {
              parking.add(k + " parked " + n + " times");
            }
            if (lastSucceeded.getOrDefault(k, false)) {
              parking.add(k + " parked after its last handling succeeded");
            } else if (successes.containsKey(k)) {
              parkedAfterRepeat[0]++;
            }
          });
    }
    int repeated = successes.values().stream().mapToInt(n -> n - 1).sum();
    return new Result(first, last, parking, repeated, parkedAfterRepeat[0]);
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
