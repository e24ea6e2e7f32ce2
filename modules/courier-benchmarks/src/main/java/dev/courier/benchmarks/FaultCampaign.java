package dev.courier.benchmarks;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * {@link WorkerGroupFaultRun} over many seeds, one after another, each on a broker of its own:
 * every property checked on every run, violations totalled by property and listed by seed, records
 * lost and repeated totalled by the fault under way when they were produced. Fails if any run broke
 * any property.
 *
 * <p>Run: {@code java -cp modules/courier-benchmarks/target/benchmarks.jar
 * dev.courier.benchmarks.FaultCampaign [first seed] [seeds] [seconds of input] [records/s]
 * [ordered]}; {@code -Dbench.campaign.minutes=N} stops starting seeds after N minutes.
 */
public final class FaultCampaign {

  private FaultCampaign() {}

  public static void main(String[] args) throws Exception {
    long first = args.length > 0 ? Long.parseLong(args[0]) : 1;
    int seeds = args.length > 1 ? Integer.parseInt(args[1]) : 50;
    int seconds = args.length > 2 ? Integer.parseInt(args[2]) : 30;
    int perSecond = args.length > 3 ? Integer.parseInt(args[3]) : 40;
    boolean ordered = args.length > 4 && args[4].equals("ordered");
    long minutes = Long.getLong("bench.campaign.minutes", 0);
    List<FaultRunResult> runs = run(first, seeds, seconds, perSecond, ordered, minutes);
    List<String> violations = violations(runs);
    BenchmarkReport.write(
        Path.of("target", "benchmarks"),
        ordered ? "faults-campaign-ordered" : "faults-campaign",
        "records",
        List.of(),
        List.of(),
        notes(runs, seconds, perSecond, violations));
    if (!violations.isEmpty()) {
      throw new IllegalStateException(
          violations.size()
              + " violation(s) over "
              + runs.size()
              + " seeded runs: "
              + violations.subList(0, Math.min(5, violations.size())));
    }
  }

  /**
   * The runs, seed after seed, until {@code seeds} ran or {@code minutes} passed ({@code 0}: no
   * limit).
   */
  static List<FaultRunResult> run(
      long first, int seeds, int seconds, int perSecond, boolean ordered, long minutes)
      throws Exception {
    long began = System.nanoTime();
    long limit = minutes <= 0 ? Long.MAX_VALUE : minutes * 60_000_000_000L;
    List<FaultRunResult> runs = new ArrayList<>();
    for (long seed = first; seed < first + seeds && System.nanoTime() - began < limit; seed++) {
      long start = System.nanoTime();
      FaultRunResult r = WorkerGroupFaultRun.run(seed, seconds, perSecond, ordered);
      runs.add(r);
      System.out.printf(
          Locale.ROOT,
          "campaign: seed %d took %.0f s, %d violation(s)%n",
          seed,
          (System.nanoTime() - start) / 1e9,
          r.violations().size());
      r.violations().stream().limit(5).forEach(v -> System.out.println("  " + v));
    }
    return runs;
  }

  /** Every violation of every run, each with its seed. */
  static List<String> violations(List<FaultRunResult> runs) {
    List<String> all = new ArrayList<>();
    runs.forEach(r -> r.violations().forEach(v -> all.add("seed " + r.seed() + ": " + v)));
    return all;
  }

  private static List<String> notes(
      List<FaultRunResult> runs, int seconds, int perSecond, List<String> violations) {
    Map<String, long[]> byFault = new TreeMap<>();
    long records = 0;
    long duplicates = 0;
    long lost = 0;
    long commits = 0;
    int[] byProperty = new int[5];
    long parkedAfterRepeat = 0;
    for (FaultRunResult r : runs) {
      parkedAfterRepeat += r.parkedAfterRepeat();
      records += r.records();
      duplicates += r.duplicates();
      lost += r.lost();
      commits += r.commits();
      byProperty[0] += r.firstHandling().size();
      byProperty[1] += r.finalState().size();
      byProperty[2] += r.parking().size();
      byProperty[3] += r.waitingBehind().size();
      byProperty[4] += r.commitMoves().size();
      r.byFault()
          .forEach(
              (kind, n) -> {
                long[] sum = byFault.computeIfAbsent(kind, k -> new long[3]);
                for (int i = 0; i < 3; i++) {
                  sum[i] += n[i];
                }
              });
    }
    List<String> notes = new ArrayList<>();
    notes.add(
        String.format(
            Locale.ROOT,
            "%d seeded runs of %d s of input at %d records/s: records %d, lost %d, duplicates %d,"
                + " commits %d; violations: first handling %d, final state %d, parking %d,"
                + " waiting-behind %d, commits moved back %d (target: 0 each); parked after a"
                + " failed repeat of a success lost to a crash %d",
            runs.size(),
            seconds,
            perSecond,
            records,
            lost,
            duplicates,
            commits,
            byProperty[0],
            byProperty[1],
            byProperty[2],
            byProperty[3],
            byProperty[4],
            parkedAfterRepeat));
    notes.add("by the fault under way when produced: " + FaultRunResult.byFault(byFault));
    runs.forEach(r -> notes.add(r.describe()));
    if (!violations.isEmpty()) {
      notes.add("violations: " + violations);
    }
    return notes;
  }
}
