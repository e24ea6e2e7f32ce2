package dev.courier.benchmarks;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Runs every variant of a pipeline once per round, in an order that rotates round by round (ABC,
 * BCA, CAB, ...), after warm-up rounds that are not counted. Running AAA then BBB let whatever
 * drifted in between (a checkpoint, autovacuum, the JIT, a neighbour on the machine) land on one
 * variant only; alternated, drift lands on each alike, and ratios taken round by round cancel it.
 */
final class Rounds {

  /** One run of a variant: its figure (a rate, a latency, ...); a warm-up's is not counted. */
  @FunctionalInterface
  interface Run {
    double measure(boolean warmUp) throws Exception;
  }

  private final int warmups;
  private final int rounds;
  private final Map<String, Run> variants = new LinkedHashMap<>();

  /**
   * One warm-up round, then {@code rounds} measured ones; a single round is a smoke run, which only
   * proves the harness works, so it gets no warm-up.
   */
  static Rounds of(int rounds) {
    return new Rounds(rounds > 1 ? 1 : 0, rounds);
  }

  /**
   * {@code warmups} warm-up rounds (none for a smoke run of one round), for pipelines whose JIT
   * still takes a core after one: the outbox's runs sped up from the first round to the third.
   */
  static Rounds of(int rounds, int warmups) {
    return new Rounds(rounds > 1 ? warmups : 0, rounds);
  }

  /** How {@link #of} warms up, for a report's notes. */
  static String warmUp(int rounds) {
    return warmUp(rounds, 1);
  }

  static String warmUp(int rounds, int warmups) {
    return rounds > 1
        ? "after " + warmups + " warm-up round" + (warmups == 1 ? "" : "s")
        : "(a smoke run: no warm-up)";
  }

  Rounds(int warmups, int rounds) {
    if (warmups < 0 || rounds < 1) {
      throw new IllegalArgumentException("warm-ups >= 0 and rounds >= 1");
    }
    this.warmups = warmups;
    this.rounds = rounds;
  }

  Rounds variant(String name, Run run) {
    if (variants.putIfAbsent(name, run) != null) {
      throw new IllegalArgumentException("two variants named " + name);
    }
    return this;
  }

  /** Every variant's measured runs, in the order the variants were added. */
  Map<String, Measurement> run() throws Exception {
    List<String> names = new ArrayList<>(variants.keySet());
    Map<String, List<Double>> values = new LinkedHashMap<>();
    names.forEach(n -> values.put(n, new ArrayList<>()));
    for (int round = 0; round < warmups + rounds; round++) {
      for (String name : order(names, round)) {
        double value = variants.get(name).measure(round < warmups);
        if (round >= warmups) {
          values.get(name).add(value);
        }
      }
    }
    Map<String, Measurement> out = new LinkedHashMap<>();
    values.forEach((n, v) -> out.put(n, new Measurement(n, v)));
    return out;
  }

  /** Round r starts at the r-th variant. */
  static List<String> order(List<String> names, int round) {
    List<String> order = new ArrayList<>(names.size());
    for (int i = 0; i < names.size(); i++) {
      order.add(names.get((round + i) % names.size()));
    }
    return order;
  }
}
