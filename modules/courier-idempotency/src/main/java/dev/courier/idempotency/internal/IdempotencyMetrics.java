package dev.courier.idempotency.internal;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.HashMap;
import java.util.Map;
import java.util.WeakHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The store's meters, tagged with the consumer group ({@code group}). Prometheus names: {@code
 * courier_idempotency_processed_total}, {@code ..._duplicates_total}, {@code ..._key_reuses_total},
 * {@code ..._failed_total}, {@code ..._store_rows}, {@code ..._purge_runs_total}, {@code
 * ..._purged_rows_total}.
 */
public final class IdempotencyMetrics {

  public final Counter processed;
  public final Counter duplicates;
  public final Counter keyReuses;
  public final Counter failed;
  public final Counter purgeRuns;
  public final Counter purgedRows;
  private final AtomicLong storeRows = new AtomicLong();

  /** One set per registry and group, so the handler and the purge job share the gauge. */
  private static final Map<MeterRegistry, Map<String, IdempotencyMetrics>> SHARED =
      new WeakHashMap<>();

  public static synchronized IdempotencyMetrics of(MeterRegistry registry, String group) {
    return SHARED
        .computeIfAbsent(registry, r -> new HashMap<>())
        .computeIfAbsent(group, g -> new IdempotencyMetrics(registry, g));
  }

  private IdempotencyMetrics(MeterRegistry registry, String group) {
    processed = counter(registry, "courier.idempotency.processed", group, "Records applied.");
    duplicates =
        counter(registry, "courier.idempotency.duplicates", group, "Redeliveries skipped.");
    keyReuses =
        counter(
            registry,
            "courier.idempotency.key.reuses",
            group,
            "Records refused: key already applied with another payload.");
    failed = counter(registry, "courier.idempotency.failed", group, "Records whose effect failed.");
    purgeRuns = counter(registry, "courier.idempotency.purge.runs", group, "Purge runs.");
    purgedRows =
        counter(registry, "courier.idempotency.purged.rows", group, "Expired keys removed.");
    Gauge.builder("courier.idempotency.store.rows", storeRows, AtomicLong::get)
        .description("Keys held for this group, as of the last purge run.")
        .tag("group", group)
        .register(registry);
  }

  public void storeRows(long rows) {
    storeRows.set(rows);
  }

  private static Counter counter(
      MeterRegistry registry, String name, String group, String description) {
    return Counter.builder(name).description(description).tag("group", group).register(registry);
  }

  /** An idempotent consumer's refused commits, tagged with the group it joined. */
  public static Counter commitsRefused(MeterRegistry registry, String group) {
    return Counter.builder("courier.idempotency.commits.refused")
        .description(
            "Offset commits the group refused because the partitions had moved on; their new"
                + " owner gets those records again and the store deduplicates them.")
        .tag("group", group)
        .register(registry);
  }

  /** Claims per completed effect of an effect ledger. */
  public static DistributionSummary ledgerAttempts(MeterRegistry registry) {
    return DistributionSummary.builder("courier.idempotency.ledger.attempts.per.completion")
        .description("Claims it took to complete one effect (retry amplification).")
        .register(registry);
  }
}
