package dev.courier.backpressure;

import dev.courier.core.Choice;

/**
 * How the monitor finds the age of a group's oldest unconsumed record ({@code
 * monitor.oldest.age.mode}).
 */
public enum AgeMode implements Choice {
  /** Reads the record at each committed offset for its timestamp. */
  EXACT,
  /** Interpolates between sampled (log-end offset, time) points, like kafka-lag-exporter. */
  ESTIMATE;
}
