package dev.courier.benchmarks;

import dev.courier.benchmarks.CapturePhase.Reader;
import dev.courier.benchmarks.CapturePhase.Result;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** The rows and checks of {@link OutboxProductionRun}'s reader phases. */
final class ProductionReport {

  private ProductionReport() {}

  static void add(List<Result> results, List<Measurement> rows, List<Check> checks) {
    Map<String, List<Result>> byLoad = new LinkedHashMap<>();
    results.forEach(
        r -> byLoad.computeIfAbsent(r.load().describe(), k -> new ArrayList<>()).add(r));
    Map<String, List<Double>> cpuRatios = new LinkedHashMap<>();
    Map<String, List<Double>> warmRatios = new LinkedHashMap<>();
    Map<String, List<Double>> notKept = new LinkedHashMap<>();
    byLoad.forEach(
        (load, of) -> {
          for (Result r : of) {
            String name = load + ", " + r.reader().label;
            rows.add(
                new Measurement(
                    name
                        + (r.load().backlog()
                            ? ": drain events/s, first event to last"
                            : ": insert-to-consumed events/s"),
                    List.of(r.consumedPerSecond())));
            rows.add(new Measurement(name + ": worst delay (ms)", List.of((double) r.worstMs())));
            rows.add(new Measurement(name + ": CPU µs per event", List.of(r.cpuMicrosPerEvent())));
            rows.add(
                new Measurement(
                    name + ": CPU µs per event after its first 10 s",
                    List.of(r.warmCpuMicrosPerEvent())));
          }
          Optional<Result> courier = find(of, Reader.COURIER);
          Optional<Result> debezium = find(of, Reader.DEBEZIUM);
          String shape = of.get(0).load().shape().name().toLowerCase(java.util.Locale.ROOT);
          if (courier.isPresent() && !of.get(0).load().backlog()) {
            Result c = courier.get();
            boolean writerKept =
                c.load().perSecond() == 0 || c.committedPerSecond() >= 0.95 * c.load().perSecond();
            notKept
                .computeIfAbsent(shape, k -> new ArrayList<>())
                .add(writerKept && !c.keptUp() ? 1.0 : 0.0);
            debezium.ifPresent(
                d -> {
                  cpuRatios
                      .computeIfAbsent(shape, k -> new ArrayList<>())
                      .add(c.cpuMicrosPerEvent() / d.cpuMicrosPerEvent());
                  warmRatios
                      .computeIfAbsent(shape, k -> new ArrayList<>())
                      .add(c.warmCpuMicrosPerEvent() / d.warmCpuMicrosPerEvent());
                });
          }
          if (of.get(0).load().backlog()) {
            ceiling(of, checks);
          }
        });
    notKept.forEach(
        (shape, values) ->
            checks.add(
                new Check(
                    new Measurement(
                        shape
                            + ": rates the writer committed that the relay did not keep up with"
                            + " from a cold start (any event over 1 s)",
                        values),
                    "",
                    Target.atMost(0))));
    cpuRatios.forEach(
        (shape, values) ->
            checks.add(
                new Check(
                    new Measurement(
                        shape + ": relay CPU per event / (b) Debezium alone's, per rate", values),
                    "x",
                    Target.atMost(1.1))));
    warmRatios.forEach(
        (shape, values) ->
            checks.add(
                new Check(
                    new Measurement(
                        shape
                            + ": relay CPU per event / (b)'s, after their first 10 s (warm), per"
                            + " rate",
                        values),
                    "x",
                    Target.atMost(1.1))));
  }

  /** A backlog of one event per transaction drained: the readers' ceilings and the cold phase. */
  private static void ceiling(List<Result> of, List<Check> checks) {
    Optional<Result> courier = find(of, Reader.COURIER);
    Optional<Result> debezium = find(of, Reader.DEBEZIUM);
    Optional<Result> raw = find(of, Reader.PGOUTPUT);
    courier.ifPresent(
        c -> {
          raw.ifPresent(
              a ->
                  checks.add(
                      new Check(
                          new Measurement(
                              "ceiling: relay drain rate / (a) raw pgoutput's, one event per"
                                  + " transaction",
                              List.of(c.consumedPerSecond() / a.consumedPerSecond())),
                          "x",
                          Target.atLeast(0.9))));
          debezium.ifPresent(
              b ->
                  checks.add(
                      new Check(
                          new Measurement(
                              "ceiling: relay CPU per event / (b) Debezium alone's, whole drain"
                                  + " and warm",
                              List.of(
                                  c.cpuMicrosPerEvent() / b.cpuMicrosPerEvent(),
                                  c.warmCpuMicrosPerEvent() / b.warmCpuMicrosPerEvent())),
                          "x",
                          Target.atMost(1.1))));
          checks.add(
              new Check(
                  new Measurement(
                      "ceiling: relay's first 10 s / its rate after (cold phase)",
                      List.of(c.first10sPerSecond() / Math.max(1, c.afterPerSecond()))),
                  "x",
                  Target.atLeast(0.5)));
          checks.add(
              new Check(
                  new Measurement(
                      "ceiling: relay start to first event of the backlog",
                      List.of(c.firstEventSeconds())),
                  " s",
                  Target.atMost(5)));
          checks.add(
              Check.reported(
                  new Measurement(
                      "ceiling: relay events/s per core (1 / CPU per event)",
                      List.of(1e6 / c.cpuMicrosPerEvent())),
                  "/s"));
        });
  }

  private static Optional<Result> find(List<Result> of, Reader reader) {
    return of.stream().filter(r -> r.reader() == reader).findFirst();
  }
}
