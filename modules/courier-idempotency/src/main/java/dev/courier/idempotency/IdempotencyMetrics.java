package dev.courier.idempotency;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.HashMap;
import java.util.Map;
import java.util.WeakHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The store's meters, tagged with the consumer name. Prometheus names: {@code
 * courier_idempotency_processed_total}, {@code ..._duplicates_total}, {@code ..._key_reuses_total},
 * {@code ..._failed_total}, {@code ..._store_rows}, {@code ..._purge_runs_total}, {@code
 * ..._purged_rows_total}.
 */
final class IdempotencyMetrics {

  final Counter processed;
  final Counter duplicates;
  final Counter keyReuses;
  final Counter failed;
  final Counter purgeRuns;
  final Counter purgedRows;
  private final AtomicLong storeRows = new AtomicLong();

  /** One set per registry and consumer, so the handler and the purge job share the gauge. */
  private static final Map<MeterRegistry, Map<String, IdempotencyMetrics>> SHARED =
      new WeakHashMap<>();

  static synchronized IdempotencyMetrics of(MeterRegistry registry, String consumer) {
    return SHARED
        .computeIfAbsent(registry, r -> new HashMap<>())
        .computeIfAbsent(consumer, c -> new IdempotencyMetrics(registry, c));
  }

  private IdempotencyMetrics(MeterRegistry registry, String consumer) {
    processed = counter(registry, "courier.idempotency.processed", consumer, "Records applied.");
    duplicates =
        counter(registry, "courier.idempotency.duplicates", consumer, "Redeliveries skipped.");
    keyReuses =
        counter(
            registry,
            "courier.idempotency.key.reuses",
            consumer,
            "Records refused: key already applied with another payload.");
    failed =
        counter(registry, "courier.idempotency.failed", consumer, "Records whose effect failed.");
    purgeRuns = counter(registry, "courier.idempotency.purge.runs", consumer, "Purge runs.");
    purgedRows =
        counter(registry, "courier.idempotency.purged.rows", consumer, "Expired keys removed.");
    Gauge.builder("courier.idempotency.store.rows", storeRows, AtomicLong::get)
        .description("Keys held for this consumer, as of the last purge run.")
        .tag("consumer", consumer)
        .register(registry);
  }

  void storeRows(long rows) {
    storeRows.set(rows);
  }

  private static Counter counter(
      MeterRegistry registry, String name, String consumer, String description) {
    return Counter.builder(name)
        .description(description)
        .tag("consumer", consumer)
        .register(registry);
  }
}
