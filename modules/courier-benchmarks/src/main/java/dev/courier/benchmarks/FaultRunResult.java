package dev.courier.benchmarks;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * What one seeded fault run found: its counts, and each guarantee checked as a property over the
 * whole run (empty lists when it held).
 *
 * @param byFault per fault under way when a record was produced: {records, lost, duplicates}
 * @param firstHandling key order: a record first called before an earlier one of its key was
 *     resolved
 * @param finalState key order: a record's last success before an earlier one's of its key
 * @param parking a record parked after its last handling succeeded, or parked twice (key order)
 * @param parkedAfterRepeat records parked after a repeat of their success failed for good: a crash
 *     lost the success's acknowledgement (at least once; not a violation, counted)
 * @param waitingBehind a waiting-behind dead letter naming a record not in the DLT
 * @param commitMoves a commit of the group that took a partition back
 */
record FaultRunResult(
    long seed,
    boolean ordered,
    int records,
    long handled,
    int calls,
    long duplicates,
    long lost,
    List<String> lostRecords,
    Map<String, long[]> byFault,
    Map<String, Long> dlt,
    List<String> firstHandling,
    List<String> finalState,
    List<String> parking,
    int parkedAfterRepeat,
    List<String> waitingBehind,
    List<String> commitMoves,
    int commits,
    String workers,
    List<String> events,
    int tooLarge) {

  /** Every violation, each named by its property. */
  List<String> violations() {
    List<String> all = new ArrayList<>();
    if (lost > 0) {
      all.add(
          "lost: "
              + lost
              + " record(s) neither handled nor in the DLT ("
              + String.join(", ", lostRecords)
              + (lost > lostRecords.size() ? ", ..." : "")
              + ")");
    }
    firstHandling.forEach(v -> all.add("first handling: " + v));
    finalState.forEach(v -> all.add("final state: " + v));
    parking.forEach(v -> all.add("parking: " + v));
    waitingBehind.forEach(v -> all.add("waiting-behind: " + v));
    commitMoves.forEach(v -> all.add("commit moved back: " + v));
    return all;
  }

  boolean clean() {
    return violations().isEmpty();
  }

  /** Records, losses and duplicates by the fault under way when each record was produced. */
  static String byFault(Map<String, long[]> byFault) {
    List<String> perFault = new ArrayList<>();
    byFault.forEach(
        (kind, n) ->
            perFault.add(
                String.format(
                    Locale.ROOT,
                    "%s: records %d, lost %d, duplicates %d",
                    kind,
                    n[0],
                    n[1],
                    n[2])));
    return String.join("; ", perFault);
  }

  /** The run in one paragraph, for the report. */
  String describe() {
    return String.format(
        Locale.ROOT,
        "seed %d%s: records %d, handled %d, calls %d, duplicates %d, lost %d, DLT %s; commits %d,"
            + " moved back %d; %s%s; by the fault under way when produced: %s; records too large"
            + " for the tiers: %d; faults: %s",
        seed,
        ordered ? " (retry.ordering=key)" : "",
        records,
        handled,
        calls,
        duplicates,
        lost,
        dlt,
        commits,
        commitMoves.size(),
        workers,
        ordered
            ? String.format(
                Locale.ROOT,
                "; violations of first handling %d, of final state %d, of parking %d,"
                    + " waiting-behind letters naming no dead letter %d; parked after a failed"
                    + " repeat of a success %d",
                firstHandling.size(),
                finalState.size(),
                parking.size(),
                waitingBehind.size(),
                parkedAfterRepeat)
            : "",
        byFault(byFault),
        tooLarge,
        String.join("; ", events));
  }
}
