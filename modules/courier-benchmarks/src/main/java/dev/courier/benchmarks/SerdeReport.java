package dev.courier.benchmarks;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import org.openjdk.jmh.results.RunResult;

/** Turns the JMH results of {@link AvroSerdeBenchmark} into the common report with its ratios. */
final class SerdeReport {

  private SerdeReport() {}

  static void write(Path dir, Collection<RunResult> results) throws IOException {
    Map<String, Measurement> byName = new TreeMap<>();
    for (RunResult r : results) {
      String method = r.getParams().getBenchmark();
      method = method.substring(method.lastIndexOf('.') + 1);
      List<Double> values = new ArrayList<>();
      r.getBenchmarkResults()
          .forEach(
              b ->
                  b.getIterationResults()
                      .forEach(i -> values.add(i.getPrimaryResult().getScore())));
      byName.put(method, new Measurement(method, values));
    }
    List<String> notes = new ArrayList<>();
    ratio(notes, byName, "courierSerialize", "rawSerialize", "serialize");
    ratio(notes, byName, "courierDeserialize", "rawDeserialize", "deserialize");
    BenchmarkReport.write(dir, "serde", "ops/s", new ArrayList<>(byName.values()), notes);
  }

  private static void ratio(
      List<String> notes, Map<String, Measurement> m, String courier, String raw, String what) {
    if (m.containsKey(courier) && m.containsKey(raw)) {
      notes.add(
          String.format(
              Locale.ROOT,
              "%s: courier / raw Avro = %.2f (target >= 0.9)",
              what,
              m.get(courier).median() / m.get(raw).median()));
    }
  }
}
