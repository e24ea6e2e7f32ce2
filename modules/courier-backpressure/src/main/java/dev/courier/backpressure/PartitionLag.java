package dev.courier.backpressure;

import java.time.Duration;
import java.util.Objects;

/**
 * One partition of one group at one tick. {@code committedOffset} is -1 when the group has not
 * committed on the partition (lag then follows the group's {@code auto.offset.reset}); {@code
 * oldestAge} is the age of the oldest record the group has not completed (zero when caught up),
 * exact unless {@code ageEstimated} (the monitor estimates ages, or the record the group waits at
 * was not read in time and an older one's age stands in); member fields are {@code "-"} when no
 * member owns it, as in {@code kafka-consumer-groups --describe}. A row whose status is {@link
 * Status#UNKNOWN} has no figures ({@code logEndOffset} -1, lag 0), only the reason.
 */
public record PartitionLag(
    String group,
    String topic,
    int partition,
    long committedOffset,
    long logEndOffset,
    long lag,
    Duration oldestAge,
    boolean ageEstimated,
    String consumerId,
    String host,
    String clientId,
    Rates rates,
    Verdict verdict) {

  public PartitionLag {
    Objects.requireNonNull(group, "group");
    Objects.requireNonNull(topic, "topic");
    Objects.requireNonNull(oldestAge, "oldestAge");
    Objects.requireNonNull(rates, "rates");
    Objects.requireNonNull(verdict, "verdict");
    if (lag < 0) {
      throw new IllegalArgumentException("lag must be >= 0, got " + lag);
    }
  }

  public boolean owned() {
    return !"-".equals(consumerId);
  }

  /** Whether the figures are known ({@link Status#UNKNOWN} rows carry only the reason). */
  public boolean known() {
    return verdict.status() != Status.UNKNOWN;
  }

  /**
   * A row without figures: the partition's log end cannot be read (its topic was deleted, it has no
   * leader), with the reason.
   */
  public static PartitionLag unknown(
      String group, String topic, int partition, long committed, String reason) {
    return new PartitionLag(
        group,
        topic,
        partition,
        committed,
        -1,
        0,
        Duration.ZERO,
        false,
        "-",
        "-",
        "-",
        Rates.NONE,
        new Verdict(Status.UNKNOWN, reason));
  }
}
