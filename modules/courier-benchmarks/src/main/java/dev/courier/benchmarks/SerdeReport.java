package dev.courier.benchmarks;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * {@link AvroSerdeBenchmark}'s methods in pairs, Courier's and raw Avro's, each pair run in two
 * JVMs by turns in short slices ({@link PairedForks}), a fresh pair of JVMs each round, so that
 * both sides of a round are measured over the same seconds. Target: Courier at least 1.0x raw Avro
 * in every round, both directions. (JMH runs the same methods alone, one method a fork.)
 */
public final class SerdeReport {

  private static final List<String[]> PAIRS =
      List.of(
          new String[] {"serialize", "courierSerialize", "rawSerialize"},
          new String[] {"deserialize", "courierDeserialize", "rawDeserialize"},
          new String[] {
            "deserialize as the consumer calls it",
            "courierDeserializeFromBatch",
            "rawDeserializeFromBatch"
          });

  /**
   * A heap of one fixed size in every fork: grown on demand, the young generation (and so how often
   * ~1 GB/s of records is collected) differed from fork to fork.
   */
  private static final List<String> FORK_HEAP = List.of("-Xms2g", "-Xmx2g", "-XX:+AlwaysPreTouch");

  /** About JMH's 3 x 1 s warm-up and 5 x 1 s measurement a fork, cut into slices. */
  private static final PairedForks.Plan FULL = new PairedForks.Plan(10, 500, 20, 250);

  private static final PairedForks.Plan SMOKE = new PairedForks.Plan(0, 1, 2, 50);

  private SerdeReport() {}

  /** Alone: {@code java -cp benchmarks.jar dev.courier.benchmarks.SerdeReport [rounds]}. */
  public static void main(String[] args) throws Exception {
    run(Path.of("target", "benchmarks"), false, args.length > 0 ? Integer.parseInt(args[0]) : 3);
  }

  static void run(Path dir, boolean smoke, int rounds) throws Exception {
    PairedForks.Plan plan = smoke ? SMOKE : FULL;
    Map<String, List<Double>> scores = new LinkedHashMap<>();
    for (int round = 0; round < rounds; round++) {
      for (String[] pair : PAIRS) {
        // Which JVM starts first, and takes the first slice, alternates round by round.
        boolean courierFirst = round % 2 == 0;
        PairedForks.Score score =
            PairedForks.run(
                courierFirst ? pair[1] : pair[2],
                courierFirst ? pair[2] : pair[1],
                plan,
                smoke ? List.of() : FORK_HEAP);
        scores
            .computeIfAbsent(pair[1], k -> new ArrayList<>())
            .add(courierFirst ? score.first() : score.second());
        scores
            .computeIfAbsent(pair[2], k -> new ArrayList<>())
            .add(courierFirst ? score.second() : score.first());
      }
    }
    Map<String, Measurement> m = new LinkedHashMap<>();
    scores.forEach((name, values) -> m.put(name, new Measurement(name, values)));
    List<Check> checks = new ArrayList<>();
    for (String[] pair : PAIRS) {
      checks.add(
          new Check(
              m.get(pair[1]).over(pair[0] + ": courier / raw Avro", m.get(pair[2])),
              "x",
              Target.atLeast(1.0)));
    }
    List<String> notes =
        List.of(
            String.format(
                Locale.ROOT,
                "%d rounds, each a fresh JVM per method (%s), the two methods of a pair by turns: %s",
                rounds,
                smoke ? "default heap" : String.join(" ", FORK_HEAP),
                plan.describe()));
    BenchmarkReport.write(dir, "serde", "ops/s", new ArrayList<>(m.values()), checks, notes);
  }
}
