package dev.courier.replay.internal;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;

/** The replay module's meters. */
public final class ReplayMetrics {

  private ReplayMetrics() {}

  /** Offset changes applied to a group: {@code action} is reset or undo. */
  public static Counter offsetChanges(MeterRegistry registry, String group, String action) {
    return Counter.builder("courier.replay.offset.changes")
        .description("Audited offset resets and undos applied to a group.")
        .tag("group", group)
        .tag("action", action)
        .register(registry);
  }
}
