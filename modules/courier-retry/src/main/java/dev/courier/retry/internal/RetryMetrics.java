package dev.courier.retry.internal;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The ladder's meters, every one tagged with the consumer {@code group} and the main {@code topic}
 * (docs/metrics.md lists them). One instance per consumer.
 */
public final class RetryMetrics {

  private final MeterRegistry registry;
  private final Tags tags;
  private final Map<String, Counter> counters = new ConcurrentHashMap<>();
  private final Map<Integer, AtomicLong> tierAgeMillis = new ConcurrentHashMap<>();
  public final Timer lateness;
  public final DistributionSummary callsPerOperation;
  public final Counter budgetWaits;
  public final Counter handlerTimeouts;
  public final Counter commitsRefused;
  public final Counter commitFailures;
  public final AtomicLong dltDepth = new AtomicLong();

  /** When {@link #dltDepth} was last counted; null before the first count. */
  public final AtomicReference<Instant> dltDepthCountedAt = new AtomicReference<>();

  public RetryMetrics(MeterRegistry registry, String group, String topic, int tiers) {
    this.registry = registry;
    this.tags = Tags.of("group", group, "topic", topic);
    lateness =
        Timer.builder("courier.retry.hop.lateness")
            .tags(tags)
            .description("How late a retry ran after its due time.")
            .publishPercentiles(0.5, 0.99)
            .register(registry);
    callsPerOperation =
        DistributionSummary.builder("courier.retry.calls.per.operation")
            .tags(tags)
            .description("Handler calls per finished record (success or dead letter).")
            .register(registry);
    budgetWaits =
        Counter.builder("courier.retry.budget.waits")
            .tags(tags)
            .description("Due retries that waited because the retry budget was empty.")
            .register(registry);
    handlerTimeouts =
        Counter.builder("courier.retry.handler.timeouts")
            .tags(tags)
            .description("Handler calls abandoned after retry.handler.timeout.ms.")
            .register(registry);
    commitsRefused =
        Counter.builder("courier.retry.commits.refused")
            .tags(tags)
            .description(
                "Offset commits the group refused because the partitions had moved on; their new"
                    + " owner redoes those records.")
            .register(registry);
    commitFailures =
        Counter.builder("courier.retry.commit.failures")
            .tags(tags)
            .description(
                "Offset commits that did not go through (the group coordinator unreachable or"
                    + " moving); they are tried again.")
            .register(registry);
    Gauge.builder("courier.retry.dlt.depth", dltDepth, AtomicLong::get)
        .tags(tags)
        .description("Records in the dead-letter topic.")
        .register(registry);
    for (int t = 1; t <= tiers; t++) {
      AtomicLong age = new AtomicLong();
      tierAgeMillis.put(t, age);
      Gauge.builder("courier.retry.tier.oldest.age.seconds", age, a -> a.get() / 1000.0)
          .tags(tags)
          .tag("tier", String.valueOf(t))
          .description("Age of the oldest record waiting at the tier.")
          .register(registry);
    }
  }

  public void attempt(int tier) {
    counter(
            "courier.retry.attempts",
            "tier",
            String.valueOf(tier),
            "Handler calls, by the tier the record was at (0: the main topic).")
        .increment();
  }

  public void deadLettered(String reason) {
    counter(
            "courier.retry.dead.lettered",
            "reason",
            reason,
            "Records sent to the dead-letter topic, by reason.")
        .increment();
  }

  public void tierAge(int tier, Duration age) {
    AtomicLong a = tierAgeMillis.get(tier);
    if (a != null) {
      a.set(Math.max(0, age.toMillis()));
    }
  }

  private Counter counter(String name, String tag, String value, String description) {
    return counters.computeIfAbsent(
        name + "|" + value,
        k ->
            Counter.builder(name)
                .tags(tags)
                .tag(tag, value)
                .description(description)
                .register(registry));
  }

  /** An operator's replays and parks of a DLT ({@code DltReplayer}). */
  public record Replays(Counter replayed, Counter parked) {
    public static Replays of(MeterRegistry registry) {
      return new Replays(
          Counter.builder("courier.retry.dlt.replayed")
              .description("Dead letters an operator replayed.")
              .register(registry),
          Counter.builder("courier.retry.dlt.parked")
              .description("Dead letters an operator parked for good.")
              .register(registry));
    }
  }
}
