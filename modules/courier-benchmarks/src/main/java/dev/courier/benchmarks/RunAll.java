package dev.courier.benchmarks;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

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
          "faults",
          "backpressure",
          "lab");

  private RunAll() {}

  public static void main(String[] args) throws Exception {
    boolean smoke = args.length > 0 && args[0].equals("smoke");
    SerdeReport.run(Path.of("target", "benchmarks"), smoke, smoke ? 1 : 3);
    OutboxPipelineBenchmark.main(
        smoke ? new String[] {"300", "1", "1"} : new String[] {"100000", "10", "5"});
    RelayFaultRun.main(smoke ? new String[] {"1", "6", "50"} : new String[] {"1", "120", "200"});
    IdempotencyPipelineBenchmark.main(
        smoke ? new String[] {"300", "1"} : new String[] {"300000", "5"});
    RetryLadderBenchmark.main(
        smoke ? new String[] {"200", "1", "200", "1"} : new String[] {"100000", "5", "2000", "10"});
    WorkerGroupFaultRun.main(
        smoke ? new String[] {"1", "5", "20"} : new String[] {"1", "120", "40"});
    BackpressureMonitorBenchmark.main(
        smoke
            ? new String[] {"10", "10", "2"}
            : new String[] {"10,100,1000,10000", "10,100", "25"});
    LabHeapBenchmark.main(smoke ? new String[] {"--step", "2"} : new String[0]);
    if (!smoke) {
      // Processes of their own and minutes of load: a full run's part only.
      OutboxProductionRun.main(new String[] {"2000,3000,4000,5000,6000,7000", "60", "100000", "3"});
    }
    writeSummary(Path.of("target", "benchmarks"), smoke);
  }

  private static void writeSummary(Path dir, boolean smoke) throws IOException {
    StringBuilder out =
        new StringBuilder(
            "# Courier benchmarks"
                + (smoke ? " (SMOKE: sizes too small to mean anything)" : "")
                + "\n\n");
    List<String> reports = new java.util.ArrayList<>(REPORTS);
    if (!smoke) {
      reports.add(1 + REPORTS.indexOf("outbox"), "outbox-production");
    }
    for (String name : reports) {
      Path md = dir.resolve(name + ".md");
      out.append(Files.exists(md) ? Files.readString(md) : "# " + name + "\n\nmissing\n")
          .append('\n');
    }
    Files.writeString(dir.resolve("summary.md"), out.toString());
  }
}
