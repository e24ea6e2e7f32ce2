package dev.courier.backpressure;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * Everything one tick observed, and what the tick cost: its duration and the requests the monitor's
 * Admin client and age reader sent. {@code logEnds} has one entry per partition the watched groups
 * refer to (whose log end is known), however many groups read it.
 */
public record LagSnapshot(
    Instant at,
    Duration tickDuration,
    long adminRequests,
    long fetchRequests,
    Map<String, GroupLag> groups,
    List<LogEnd> logEnds) {

  public static final LagSnapshot EMPTY =
      new LagSnapshot(Instant.EPOCH, Duration.ZERO, 0, 0, Map.of(), List.of());

  public LagSnapshot {
    Objects.requireNonNull(at, "at");
    Objects.requireNonNull(tickDuration, "tickDuration");
    groups = Map.copyOf(groups);
    logEnds = List.copyOf(logEnds);
  }

  public Optional<GroupLag> group(String group) {
    return Optional.ofNullable(groups.get(group));
  }
}
