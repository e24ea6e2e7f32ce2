package dev.courier.benchmarks;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.options.Options;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;

/**
 * {@link AvroSerdeBenchmark} in alternated JMH forks: each round forks one JVM per benchmark
 * method, in rotating order ({@link Rounds}), so Courier and raw Avro meet the machine's drift
 * alike and each fork's score pairs with the raw one of its round. Target: Courier at least 1.0x
 * raw Avro in every round, both directions.
 */
final class SerdeReport {

  private static final List<String[]> PAIRS =
      List.of(
          new String[] {"serialize", "courierSerialize", "rawSerialize"},
          new String[] {"deserialize", "courierDeserialize", "rawDeserialize"},
          new String[] {
            "deserialize as the consumer calls it",
            "courierDeserializeFromBatch",
            "rawDeserializeFromBatch"
          });

  private static final String[] FORK_HEAP = {"-Xms2g", "-Xmx2g", "-XX:+AlwaysPreTouch"};

  private SerdeReport() {}

  static void run(Path dir, boolean smoke, int rounds) throws Exception {
    Rounds alternated = new Rounds(0, rounds);
    for (String[] pair : PAIRS) {
      for (int i = 1; i <= 2; i++) {
        String method = pair[i];
        alternated.variant(method, warmUp -> fork(method, smoke));
      }
    }
    Map<String, Measurement> m = alternated.run();
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
                "%d alternated rounds, one JMH fork per method and round (%s)",
                rounds,
                smoke
                    ? "smoke: no fork, one 100 ms iteration"
                    : "3 x 1 s warm-up, 5 x 1 s measured"));
    BenchmarkReport.write(dir, "serde", "ops/s", new ArrayList<>(m.values()), checks, notes);
  }

  /** One fork of one method; its score is the mean of its measured iterations. */
  private static double fork(String method, boolean smoke) throws Exception {
    Options options =
        new OptionsBuilder()
            .include(AvroSerdeBenchmark.class.getName() + "\\." + method + "$")
            .forks(smoke ? 0 : 1)
            .warmupIterations(smoke ? 0 : 3)
            .warmupTime(TimeValue.seconds(1))
            .measurementIterations(smoke ? 1 : 5)
            .measurementTime(smoke ? TimeValue.milliseconds(100) : TimeValue.seconds(1))
            // A heap of one fixed size in every fork: grown on demand, the young generation (and so
            // how often ~1 GB/s of records is collected) differed from fork to fork.
            .jvmArgsAppend(FORK_HEAP)
            .build();
    RunResult result = new Runner(options).runSingle();
    return result.getPrimaryResult().getScore();
  }
}
