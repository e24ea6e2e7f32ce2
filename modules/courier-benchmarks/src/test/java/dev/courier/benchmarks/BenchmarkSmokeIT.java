package dev.courier.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * The whole harness at tiny sizes, so it cannot rot: every pipeline runs against its baselines on
 * the embedded infrastructure and writes its table and JSON. The numbers are not looked at.
 */
class BenchmarkSmokeIT {

  @Test
  void everyBenchmarkRunsAndReports() throws Exception {
    RunAll.main(new String[] {"smoke"});
    Path dir = Path.of("target", "benchmarks");
    for (String name : RunAll.REPORTS) {
      assertThat(dir.resolve(name + ".json")).as(name).exists();
      assertThat(Files.readString(dir.resolve(name + ".md")))
          .as(name)
          .contains("| pipeline |")
          .contains("target");
    }
    assertThat(Files.readString(dir.resolve("summary.md")))
        .contains("SMOKE")
        .contains("# backpressure");
  }
}
