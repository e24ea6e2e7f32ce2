package dev.courier.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

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

  @Test
  void aRelayWhoseCoreRanSlowerIsReadInItsCoresProbeUnits() {
    // The host slowed the readers' core by 1.6x while the relay drained, and not during (b)'s;
    // the other core, PostgreSQL's, ran 1.2x slower during (a)'s drain than during the relay's.
    List<Result> results =
        List.of(
            drained(Reader.COURIER, 12_000, 80, 64, 2.0, 1.5),
            drained(Reader.DEBEZIUM, 20_000, 50, 40, 1.25, 1.5),
            drained(Reader.PGOUTPUT, 15_000, 30, 30, 1.25, 1.8));
    List<Check> checks = new ArrayList<>();

    ProductionReport.add(results, new ArrayList<>(), checks);

    assertThat(values(checks, "relay CPU per event / (b) Debezium")).containsExactly(1.6, 1.6);
    assertThat(values(checks, "probe unit on the readers' core")).containsExactly(1.6);
    assertThat(values(checks, "in its core's probe units")).containsExactly(1.0, 1.0);
    List<Double> walsender = values(checks, "on the other core");
    assertThat(walsender).hasSize(1);
    assertThat(walsender.get(0)).isCloseTo(0.833, within(0.001));
  }

  @Test
  void withoutAProbeNoProbedRatioIsReported() {
    List<Check> checks = new ArrayList<>();

    ProductionReport.add(
        List.of(drained(Reader.COURIER, 9_000, 60, 50), drained(Reader.DEBEZIUM, 10_000, 50, 40)),
        new ArrayList<>(),
        checks);

    assertThat(checks).noneMatch(c -> c.figure().name().contains("probe"));
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
    return drained(reader, perSecond, cpu, warmCpu, Double.NaN, Double.NaN);
  }

  private static Result drained(
      Reader reader,
      double perSecond,
      double cpu,
      double warmCpu,
      double probeMillis,
      double otherProbeMillis) {
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
        List.of(),
        probeMillis,
        otherProbeMillis);
  }
}
