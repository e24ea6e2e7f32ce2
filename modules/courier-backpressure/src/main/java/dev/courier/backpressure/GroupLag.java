package dev.courier.backpressure;

import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * One consumer group at one tick: its state as the coordinator reports it ({@code Stable}, {@code
 * Empty}, ...), member count, partitions, the roll-ups Prometheus users know from
 * kafka-lag-exporter (sum, max lag, max age) and the group's status, which is the worst of its
 * partitions (STALL and STOP roll up to ERR).
 */
public record GroupLag(
    String group,
    String state,
    int members,
    List<PartitionLag> partitions,
    long sumLag,
    long maxLag,
    Duration maxOldestAge,
    double lagGrowthRate,
    Optional<Duration> timeToDrain,
    Verdict verdict) {

  public GroupLag {
    Objects.requireNonNull(group, "group");
    partitions = List.copyOf(partitions);
    Objects.requireNonNull(maxOldestAge, "maxOldestAge");
    Objects.requireNonNull(verdict, "verdict");
    timeToDrain = timeToDrain == null ? Optional.empty() : timeToDrain;
  }

  /** Rolls partitions up into the group's figures and status. */
  public static GroupLag of(String group, String state, int members, List<PartitionLag> parts) {
    long sum = 0;
    long max = 0;
    Duration maxAge = Duration.ZERO;
    double growth = 0;
    Optional<Duration> drain = Optional.of(Duration.ZERO);
    Status status = Status.OK;
    PartitionLag worst = null;
    for (PartitionLag p : parts) {
      sum += p.lag();
      max = Math.max(max, p.lag());
      if (p.oldestAge().compareTo(maxAge) > 0) {
        maxAge = p.oldestAge();
      }
      growth += p.rates().lagGrowthRate();
      drain = longest(drain, p.rates().timeToDrain(), p.lag());
      Status before = status;
      status = status.worse(p.verdict().status());
      if (status != before || worst == null) {
        worst = p;
      }
    }
    Verdict verdict =
        worst == null
            ? new Verdict(Status.OK, "no partitions")
            : new Verdict(
                status == Status.STALL || status == Status.STOP ? Status.ERR : status,
                status == Status.OK
                    ? "all partitions OK"
                    : worst.topic()
                        + "-"
                        + worst.partition()
                        + " "
                        + worst.verdict().status()
                        + ": "
                        + worst.verdict().reason());
    return new GroupLag(group, state, members, parts, sum, max, maxAge, growth, drain, verdict);
  }

  private static Optional<Duration> longest(
      Optional<Duration> sofar, Optional<Duration> next, long lag) {
    if (sofar.isEmpty()) {
      return sofar;
    }
    if (next.isEmpty()) {
      return lag == 0 ? sofar : Optional.empty();
    }
    return next.get().compareTo(sofar.get()) > 0 ? next : sofar;
  }
}
