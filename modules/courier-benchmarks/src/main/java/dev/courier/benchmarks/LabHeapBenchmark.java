package dev.courier.benchmarks;

import dev.courier.testkit.JvmWorker;
import dev.courier.testkit.WorkerProcess;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * {@code courier lab}'s peak heap: the lab runs from its packaged jar ({@code
 * modules/courier-lab/target/courier-lab.jar}, or {@code -Dbench.lab.jar}) in its own JVM capped at
 * 1 GiB, with its embedded Kafka broker and schema registry in that JVM (PostgreSQL and the crash
 * workers are processes of their own), and its heap is sampled with jcmd for the whole run. The
 * benchmarks do not depend on the lab's module, so a build runs the two side by side; build the lab
 * first ({@code -pl modules/courier-lab,modules/courier-benchmarks -am}).
 *
 * <p>Arguments: the lab's own arguments (none: every step).
 */
public final class LabHeapBenchmark {

  private static final int MAX_MIB = 1024;

  private LabHeapBenchmark() {}

  public static void main(String[] args) throws Exception {
    List<String> labArgs = new ArrayList<>(List.of("lab"));
    labArgs.addAll(List.of(args));
    long started = System.nanoTime();
    List<String> notes = new ArrayList<>();
    Path jar =
        Path.of(System.getProperty("bench.lab.jar", "modules/courier-lab/target/courier-lab.jar"));
    if (!Files.isRegularFile(jar)) {
      throw new IllegalStateException(
          "no lab jar at "
              + jar.toAbsolutePath()
              + ": build it first (mvn -B -q install -DskipTests -pl"
              + " modules/courier-lab,modules/courier-benchmarks -am)");
    }
    try (WorkerProcess lab =
        JvmWorker.of("dev.courier.lab.CourierLab")
            .classpath(jar.toAbsolutePath().toString())
            .name("lab")
            .jvmOption("-Xmx" + MAX_MIB + "m")
            .args(labArgs.toArray(String[]::new))
            .start()) {
      HeapSampler heap = new HeapSampler(lab.pid());
      int status = lab.awaitExit(Duration.ofMinutes(10));
      heap.close();
      String summary =
          lab.output()
              .lines()
              .filter(l -> l.startsWith("courier lab:"))
              .reduce((a, b) -> b)
              .orElse("?");
      notes.add(
          String.format(
              Locale.ROOT,
              "courier %s: peak heap used %d MiB in a JVM capped at -Xmx%dm (target <= 1024 MiB);"
                  + " exit status %d, %.0f s; %s",
              String.join(" ", labArgs),
              heap.peakMiB(),
              MAX_MIB,
              status,
              (System.nanoTime() - started) / 1e9,
              summary));
    }
    notes.forEach(System.out::println);
    BenchmarkReport.write(
        Path.of("target", "benchmarks"), "lab", "MiB", List.of(), List.of(), notes);
  }
}
