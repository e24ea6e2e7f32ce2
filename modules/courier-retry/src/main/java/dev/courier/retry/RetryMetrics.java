package dev.courier.retry;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Prometheus: {@code courier_retry_attempts_total{topic,tier}}, {@code
 * courier_retry_dead_lettered_total{topic,reason}}, {@code courier_retry_budget_waits_total},
 * {@code courier_retry_hop_lateness_seconds} (execution minus due time, never negative), {@code
 * courier_retry_tier_oldest_age_seconds{topic,tier}} (the oldest record waiting at a tier), {@code
 * courier_retry_calls_per_operation} (handler calls per finished record), {@code
 * courier_retry_dlt_depth{topic}} (records in the DLT, -1 until first counted), {@code
 * courier_retry_handler_timeouts_total}, {@code courier_retry_commits_refused_total}.
 */
final class RetryMetrics {

  private final MeterRegistry registry;
  private final String topic;
  private final Map<String, Counter> counters = new ConcurrentHashMap<>();
  private final Map<Integer, AtomicLong> tierAgeMillis = new ConcurrentHashMap<>();
  final Timer lateness;
  final DistributionSummary callsPerOperation;
  final Counter budgetWaits;
  final Counter handlerTimeouts;
  final Counter commitsRefused;
  final AtomicLong dltDepth = new AtomicLong();

  RetryMetrics(MeterRegistry registry, String topic, int tiers) {
    this.registry = registry;
    this.topic = topic;
    lateness =
        Timer.builder("courier.retry.hop.lateness")
            .tag("topic", topic)
            .description("How late a retry ran after its due time.")
            .publishPercentiles(0.5, 0.99)
            .register(registry);
    callsPerOperation =
        DistributionSummary.builder("courier.retry.calls.per.operation")
            .tag("topic", topic)
            .description("Handler calls per finished record (success or dead letter).")
            .register(registry);
    budgetWaits =
        Counter.builder("courier.retry.budget.waits")
            .tag("topic", topic)
            .description("Due retries that waited because the retry budget was empty.")
            .register(registry);
    handlerTimeouts =
        Counter.builder("courier.retry.handler.timeouts")
            .tag("topic", topic)
            .description("Handler calls abandoned after retry.handler.timeout.ms.")
            .register(registry);
    commitsRefused =
        Counter.builder("courier.retry.commits.refused")
            .tag("topic", topic)
            .description(
                "Offset commits the group refused because the partitions had moved on; their new"
                    + " owner redoes those records.")
            .register(registry);
    Gauge.builder("courier.retry.dlt.depth", dltDepth, AtomicLong::get)
        .tag("topic", topic)
        .description("Records in the dead-letter topic.")
        .register(registry);
    for (int t = 1; t <= tiers; t++) {
      AtomicLong age = new AtomicLong();
      tierAgeMillis.put(t, age);
      Gauge.builder("courier.retry.tier.oldest.age.seconds", age, a -> a.get() / 1000.0)
          .tag("topic", topic)
          .tag("tier", String.valueOf(t))
          .description("Age of the oldest record waiting at the tier.")
          .register(registry);
    }
  }

  void attempt(int tier) {
    counter("courier.retry.attempts", "tier", String.valueOf(tier)).increment();
  }

  void deadLettered(String reason) {
    counter("courier.retry.dead.lettered", "reason", reason).increment();
  }

  void tierAge(int tier, Duration age) {
    AtomicLong a = tierAgeMillis.get(tier);
    if (a != null) {
      a.set(Math.max(0, age.toMillis()));
    }
  }

  private Counter counter(String name, String tag, String value) {
    return counters.computeIfAbsent(
        name + "|" + value,
        k -> Counter.builder(name).tag("topic", topic).tag(tag, value).register(registry));
  }
}
