package dev.courier.benchmarks;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Every benchmark in one run, each against its baselines, then one summary of all tables in {@code
 * target/benchmarks/summary.md}. {@code smoke} runs tiny sizes so CI proves the harness works;
 * numbers from a smoke run mean nothing.
 *
 * <p>Run: {@code java -cp modules/courier-benchmarks/target/benchmarks.jar
 * dev.courier.benchmarks.RunAll [full|smoke]}
 */
public final class RunAll {

  static final List<String> REPORTS =
      List.of(
          "serde",
          "outbox",
          "relay-faults",
          "idempotency",
          "retry",
          "tracing",
          "retry-ordering",
          "faults",
          "faults-campaign-ordered",
          "backpressure");

  private RunAll() {}

  public static void main(String[] args) throws Exception {
    boolean smoke = args.length > 0 && args[0].equals("smoke");
    Path dir = Path.of("target", "benchmarks");
    Map<String, Exception> failed = new LinkedHashMap<>();
    // One harness that fails (an engine that stopped, a broker that froze) is reported in the
    // summary with its reason; the others still run, so a long run is not lost to one of them.
    Step.run(failed, "serde", () -> SerdeReport.run(dir, smoke, smoke ? 1 : 3));
    Step.run(
        failed,
        "outbox",
        () ->
            OutboxPipelineBenchmark.main(
                smoke ? new String[] {"300", "1", "1"} : new String[] {"100000", "10", "5"}));
    Step.run(
        failed,
        "relay-faults",
        () ->
            RelayFaultRun.main(
                smoke ? new String[] {"1", "3", "30"} : new String[] {"1", "120", "200"}));
    Step.run(
        failed,
        "idempotency",
        () ->
            IdempotencyPipelineBenchmark.main(
                smoke ? new String[] {"300", "1"} : new String[] {"300000", "5"}));
    Step.run(
        failed,
        "retry",
        () ->
            RetryLadderBenchmark.main(
                smoke
                    ? new String[] {"200", "1", "200", "1"}
                    : new String[] {"100000", "5", "2000", "10"}));
    Step.run(
        failed,
        "tracing",
        () ->
            TracingBenchmark.main(
                smoke ? new String[] {"500", "200", "1"} : new String[] {"50000", "50000", "5"}));
    Step.run(
        failed,
        "retry-ordering",
        () ->
            OrderedRetryBenchmark.main(
                smoke ? new String[] {"200", "1"} : new String[] {"50000", "5"}));
    // The campaign's CI slice: one seed in the smoke; the full run's, three of two minutes.
    Step.run(
        failed,
        "faults-ordered",
        () ->
            FaultCampaign.main(
                smoke
                    ? new String[] {"1", "1", "3", "10", "ordered"}
                    : new String[] {"1", "3", "120", "40", "ordered"}));
    Step.run(
        failed,
        "faults",
        () ->
            WorkerGroupFaultRun.main(
                smoke ? new String[] {"1", "3", "10"} : new String[] {"1", "120", "40"}));
    Step.run(
        failed,
        "backpressure",
        () ->
            BackpressureMonitorBenchmark.main(
                smoke
                    ? new String[] {"10", "10", "2"}
                    : new String[] {"10,100,1000,10000", "10,100", "25"}));
    if (!smoke) {
      // The lab's own test (LabIT) runs it in 1 GiB on every build; its peak heap is a full run's.
      Step.run(failed, "lab", () -> LabHeapBenchmark.main(new String[0]));
      // Processes of their own and minutes of load: a full run's part only.
      Step.run(
          failed,
          "outbox-production",
          () -> OutboxProductionRun.main(new String[] {"500,1000,2000,0", "20", "100000", "3"}));
    }
    writeSummary(dir, smoke, failed);
    if (!failed.isEmpty()) {
      throw new IllegalStateException(
          "benchmarks failed: " + failed.keySet(), failed.values().iterator().next());
    }
  }

  /** One harness of the run. */
  @FunctionalInterface
  private interface Step {
    void run() throws Exception;

    static void run(Map<String, Exception> failed, String name, Step step) {
      long start = System.nanoTime();
      try {
        step.run();
        System.out.printf(
            Locale.ROOT, "benchmark %s took %.1f s%n", name, (System.nanoTime() - start) / 1e9);
      } catch (Exception e) {
        System.err.println("benchmark " + name + " failed:");
        e.printStackTrace();
        failed.put(name, e);
      }
    }
  }

  private static void writeSummary(Path dir, boolean smoke, Map<String, Exception> failed)
      throws IOException {
    StringBuilder out =
        new StringBuilder(
            "# Courier benchmarks"
                + (smoke ? " (SMOKE: sizes too small to mean anything)" : "")
                + "\n\n");
    List<String> reports = new java.util.ArrayList<>(REPORTS);
    if (!smoke) {
      reports.add(1 + REPORTS.indexOf("outbox"), "outbox-production");
      reports.add("lab");
    }
    for (String name : reports) {
      Path md = dir.resolve(name + ".md");
      String report =
          failed.containsKey(name)
              ? "# " + name + "\n\nFAILED: " + failed.get(name) + "\n"
              : Files.exists(md) ? Files.readString(md) : "# " + name + "\n\nmissing\n";
      out.append(report).append('\n');
    }
    Files.writeString(dir.resolve("summary.md"), out.toString());
  }
}
