package dev.courier.backpressure;

import java.time.Instant;
import java.util.Objects;

/**
 * One observation of a partition for one group: when, the committed offset (-1 when the group has
 * none), the log-end offset and the lag.
 */
public record OffsetSample(Instant at, long committedOffset, long logEndOffset, long lag) {
  public OffsetSample {
    Objects.requireNonNull(at, "at");
    if (logEndOffset < 0 || lag < 0) {
      throw new IllegalArgumentException(
          "logEndOffset and lag must be >= 0, got " + logEndOffset + " and " + lag);
    }
  }
}
