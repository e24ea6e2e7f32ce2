package dev.courier.schema.internal;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;

/** The registry client's requests, counted by outcome. */
public record RegistryMeters(Counter ok, Counter refused, Counter failed) {

  public static RegistryMeters of(MeterRegistry registry) {
    return new RegistryMeters(
        counter(registry, "ok"), counter(registry, "refused"), counter(registry, "failed"));
  }

  /** Counted nowhere anyone reads, for tests of the HTTP client alone. */
  static RegistryMeters none() {
    return of(new SimpleMeterRegistry());
  }

  private static Counter counter(MeterRegistry registry, String outcome) {
    return Counter.builder("courier.schema.registry.requests")
        .tag("outcome", outcome)
        .description(
            "Requests to the schema registry, by outcome (ok: answered with success; refused: an"
                + " error that is not retried, 4xx; failed: unreachable, timed out or 5xx,"
                + " retried).")
        .register(registry);
  }
}
