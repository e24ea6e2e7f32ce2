package dev.courier.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import dev.courier.benchmarks.CapturePhase.Load;
import dev.courier.benchmarks.CapturePhase.Reader;
import dev.courier.benchmarks.CapturePhase.Result;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class ProductionReportTest {

  private static final Load CEILING = Load.backlogOfOne(400_000);

  @Test
  void aCeilingInRoundsTakesEachRatioWithinItsRound() {
    // Round 2 in reverse, as the run orders it; the machine twice as fast in round 2.
    List<Result> results =
        List.of(
            drained(Reader.COURIER, 9_000, 60, 50),
            drained(Reader.DEBEZIUM, 10_000, 50, 40),
            drained(Reader.PGOUTPUT, 10_000, 30, 30),
            drained(Reader.PGOUTPUT, 20_000, 15, 15),
            drained(Reader.DEBEZIUM, 20_000, 25, 20),
            drained(Reader.COURIER, 19_000, 30, 25));
    List<Measurement> rows = new ArrayList<>();
    List<Check> checks = new ArrayList<>();

    ProductionReport.add(results, rows, checks);

    assertThat(values(checks, "relay drain rate / (a)")).containsExactly(0.9, 0.95);
    assertThat(values(checks, "relay CPU per event / (b)")).containsExactly(1.2, 1.25, 1.2, 1.25);
    assertThat(rows)
        .filteredOn(m -> m.name().endsWith("Courier relay: drain events/s, first event to last"))
        .singleElement()
        .extracting(Measurement::values)
        .isEqualTo(List.of(9_000.0, 19_000.0));
  }

  private static List<Double> values(List<Check> checks, String name) {
    return checks.stream()
        .filter(c -> c.figure().name().contains(name))
        .findFirst()
        .orElseThrow()
        .figure()
        .values();
  }

  private static Result drained(Reader reader, double perSecond, double cpu, double warmCpu) {
    return new Result(
        reader,
        CEILING,
        true,
        3_000,
        perSecond,
        3,
        100,
        100,
        perSecond / 2,
        perSecond,
        cpu,
        warmCpu,
        List.of(),
        List.of());
  }
}
