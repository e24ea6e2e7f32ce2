package dev.courier.backpressure;

import java.util.Objects;

/** One partition's log-end offset at a tick and its produce rate over the window (records/s). */
public record LogEnd(String topic, int partition, long offset, double produceRate) {
  public LogEnd {
    Objects.requireNonNull(topic, "topic");
  }
}
