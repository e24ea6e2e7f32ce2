package dev.courier.backpressure;

import dev.courier.backpressure.internal.GroupRows;
import dev.courier.backpressure.internal.RollUp;
import java.time.Duration;
import java.time.Instant;
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
    double commitRate,
    Optional<Duration> timeToDrain,
    Verdict verdict,
    Instant observedAt) {

  public GroupLag {
    Objects.requireNonNull(group, "group");
    Objects.requireNonNull(observedAt, "observedAt");
    // The monitor's rows are immutable columns read row by row; a copy would make an object of
    // each.
    partitions = partitions instanceof GroupRows ? partitions : List.copyOf(partitions);
    Objects.requireNonNull(maxOldestAge, "maxOldestAge");
    Objects.requireNonNull(verdict, "verdict");
    timeToDrain = timeToDrain == null ? Optional.empty() : timeToDrain;
  }

  /** A group without figures (not found, not described), with the reason. */
  public static GroupLag unknown(String group, String state, String reason, Instant observedAt) {
    return new GroupLag(
        group,
        state,
        0,
        List.of(),
        0,
        0,
        Duration.ZERO,
        0,
        0,
        Optional.empty(),
        new Verdict(Status.UNKNOWN, reason),
        observedAt);
  }

  /** How long ago these figures were observed. */
  public Duration age(Instant now) {
    Duration d = Duration.between(observedAt, now);
    return d.isNegative() ? Duration.ZERO : d;
  }

  /** Rolls partitions up into the group's figures and status. */
  public static GroupLag of(
      String group, String state, int members, List<PartitionLag> parts, Instant observedAt) {
    RollUp r = new RollUp();
    for (int i = 0; i < parts.size(); i++) {
      PartitionLag p = parts.get(i);
      Rates rates = p.rates();
      r.add(
          i,
          p.lag(),
          p.oldestAge().toNanos(),
          rates.lagGrowthRate(),
          rates.commitRate(),
          rates.timeToDrain().map(Duration::toMillis).orElse(-1L),
          p.verdict().status());
    }
    return rolledUp(group, state, members, parts, r, observedAt);
  }

  /** The group from its partitions and their roll-up. */
  public static GroupLag rolledUp(
      String group,
      String state,
      int members,
      List<PartitionLag> parts,
      RollUp r,
      Instant observedAt) {
    Verdict verdict;
    if (r.worst < 0) {
      verdict = NO_PARTITIONS;
    } else if (r.status == Status.OK) {
      verdict = ALL_OK;
    } else {
      PartitionLag worst = parts.get(r.worst);
      verdict =
          new Verdict(
              r.status == Status.STALL || r.status == Status.STOP ? Status.ERR : r.status,
              worst.topic()
                  + "-"
                  + worst.partition()
                  + " "
                  + worst.verdict().status()
                  + ": "
                  + worst.verdict().reason());
    }
    return new GroupLag(
        group,
        state,
        members,
        parts,
        r.sumLag,
        r.maxLag,
        Duration.ofNanos(r.maxAgeNanos),
        r.growth,
        r.commit,
        r.drainMillis < 0 ? Optional.empty() : Optional.of(Duration.ofMillis(r.drainMillis)),
        verdict,
        observedAt);
  }

  private static final Verdict NO_PARTITIONS = new Verdict(Status.OK, "no partitions");
  private static final Verdict ALL_OK = new Verdict(Status.OK, "all partitions OK");
}
