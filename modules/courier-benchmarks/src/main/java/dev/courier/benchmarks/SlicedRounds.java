package dev.courier.benchmarks;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@link Rounds} for rates, with each variant's run cut into slices and the variants' slices
 * interleaved within a round (A1 B1 C1, B2 C2 A2, ...). On a shared virtual machine the CPU a
 * process gets moves by a third within seconds (the hypervisor's steal time went from 3% to 38%
 * between two ten-second samples here), more than any change under test. Whole runs of ten seconds
 * each then meet different machines and their ratio says so; sliced, every variant's run is spread
 * over the same stretch of the round, so what the machine takes lands on each alike.
 */
final class SlicedRounds {

  /** What one slice did: how many items, in how many seconds of its own timing. */
  record Work(long count, double seconds) {

    static final Work NONE = new Work(0, 0);

    Work {
      if (count < 0 || seconds < 0 || (count > 0 && seconds == 0)) {
        throw new IllegalArgumentException(count + " items in " + seconds + " s");
      }
    }

    Work plus(Work other) {
      return new Work(count + other.count, seconds + other.seconds);
    }

    double rate() {
      if (seconds == 0) {
        throw new IllegalStateException("nothing was timed");
      }
      return count / seconds;
    }
  }

  /** A variant whose run is done in slices; its rate is the slices' items over their seconds. */
  interface Variant {

    /** Before a run's first slice and outside its timing: a fresh group, a fresh consumer name. */
    default void start() throws Exception {}

    /**
     * Slice {@code index} (from 0) of {@code slices}: together a run's slices do the whole run's
     * work, each resuming where the one before stopped.
     */
    Work slice(int index, int slices) throws Exception;

    /** After a run's last slice, with the run's total. */
    default void end(boolean warmUp, Work total) throws Exception {}
  }

  /** Before every round's first slice, outside every timing (e.g. empty tables, a checkpoint). */
  @FunctionalInterface
  interface BeforeRound {
    void run() throws Exception;
  }

  private final int warmups;
  private final int rounds;
  private final int slices;
  private final Map<String, Variant> variants = new LinkedHashMap<>();
  private BeforeRound beforeRound = () -> {};

  /** As {@link Rounds#of(int)}: one warm-up round unless it is a smoke run of one round. */
  static SlicedRounds of(int rounds, int slices) {
    return new SlicedRounds(rounds > 1 ? 1 : 0, rounds, slices);
  }

  SlicedRounds(int warmups, int rounds, int slices) {
    if (warmups < 0 || rounds < 1 || slices < 1) {
      throw new IllegalArgumentException("warm-ups >= 0, rounds >= 1 and slices >= 1");
    }
    this.warmups = warmups;
    this.rounds = rounds;
    this.slices = slices;
  }

  SlicedRounds beforeRound(BeforeRound action) {
    this.beforeRound = action;
    return this;
  }

  SlicedRounds variant(String name, Variant variant) {
    if (variants.putIfAbsent(name, variant) != null) {
      throw new IllegalArgumentException("two variants named " + name);
    }
    return this;
  }

  /** Every variant's measured rates, one a round, in the order the variants were added. */
  Map<String, Measurement> run() throws Exception {
    List<String> names = new ArrayList<>(variants.keySet());
    Map<String, List<Double>> rates = new LinkedHashMap<>();
    names.forEach(n -> rates.put(n, new ArrayList<>()));
    for (int round = 0; round < warmups + rounds; round++) {
      boolean warmUp = round < warmups;
      beforeRound.run();
      Map<String, Work> done = new LinkedHashMap<>();
      for (String name : Rounds.order(names, round)) {
        variants.get(name).start();
        done.put(name, Work.NONE);
      }
      for (int slice = 0; slice < slices; slice++) {
        // Rotated slice by slice too, so that no variant always runs right after the same other.
        for (String name : Rounds.order(names, round + slice)) {
          done.merge(name, variants.get(name).slice(slice, slices), Work::plus);
        }
      }
      for (String name : names) {
        variants.get(name).end(warmUp, done.get(name));
        if (!warmUp) {
          rates.get(name).add(done.get(name).rate());
        }
      }
    }
    Map<String, Measurement> out = new LinkedHashMap<>();
    rates.forEach((n, v) -> out.put(n, new Measurement(n, v)));
    return out;
  }

  /** How many of {@code total} items slice {@code index} of {@code slices} should reach in all. */
  static long target(long total, int index, int slices) {
    return total * (index + 1) / slices;
  }
}
