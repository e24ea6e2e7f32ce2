package dev.courier.retry.internal;

import dev.courier.retry.Decision;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * Key order's meters ({@code retry.ordering=key}), tagged like the ladder's; the gauges are set by
 * the loop after each poll, so a scrape never reads the loop's own state.
 */
public final class OrderMetrics {

  private final RetryMetrics ladder;
  private final LadderProgress progress;
  private final AtomicLong blockedKeys = new AtomicLong();
  private final AtomicLong waiting = new AtomicLong();
  private final AtomicLong oldestMillis = new AtomicLong();
  public final Counter overflows;
  public final Counter seen;
  public final Counter writes;
  public final Counter lost;

  public OrderMetrics(
      MeterRegistry registry,
      String group,
      String topic,
      RetryMetrics ladder,
      LadderProgress progress) {
    this.ladder = ladder;
    this.progress = progress;
    Tags tags = Tags.of("group", group, "topic", topic);
    Gauge.builder("courier.retry.ordering.blocked.keys", blockedKeys, AtomicLong::get)
        .tags(tags)
        .description("Keys blocked behind a record in the ladder (retry.ordering=key).")
        .register(registry);
    Gauge.builder("courier.retry.ordering.waiting.records", waiting, AtomicLong::get)
        .tags(tags)
        .description("Main-topic records waiting behind their key's record in the ladder.")
        .register(registry);
    Gauge.builder("courier.retry.ordering.oldest.wait.seconds", oldestMillis, a -> a.get() / 1e3)
        .tags(tags)
        .description("How long the longest-blocked key has been blocked (0 when none is).")
        .register(registry);
    overflows =
        Counter.builder("courier.retry.ordering.overflows")
            .tags(tags)
            .description(
                "Times a partition met retry.ordering.max.blocked.keys or"
                    + " retry.ordering.max.waiting.records (paused, or a record dead-lettered).")
            .register(registry);
    seen =
        Counter.builder("courier.retry.ordering.seen")
            .tags(tags)
            .description(
                "Records read again that key order knows are dealt with, not called again: a"
                    + " main-topic record its key's chain held or that was dead-lettered, or a"
                    + " tier's copy of a head its key no longer waits for.")
            .register(registry);
    writes =
        Counter.builder("courier.retry.ordering.state.writes")
            .tags(tags)
            .description(
                "Writes to <topic>.<group>.retry.blocked (blocked keys, waiting records, frees).")
            .register(registry);
    lost =
        Counter.builder("courier.retry.ordering.lost")
            .tags(tags)
            .description(
                "Waiting records the main topic no longer held when their turn came (its"
                    + " retention was shorter than the wait). Alert on any.")
            .register(registry);
  }

  /** A waiting record followed its key's head into the DLT. */
  void parked(ConsumerRecord<byte[], byte[]> record) {
    ladder.deadLettered(Decision.DeadLetter.WAITING_BEHIND);
    progress.deadLettered();
  }

  /** After a poll: the gauges from the loop's state. */
  public void update(KeyChains chains, Instant now) {
    blockedKeys.set(chains.blockedKeys());
    waiting.set(chains.waitingRecords());
    oldestMillis.set(chains.oldest().map(s -> Duration.between(s, now).toMillis()).orElse(0L));
  }
}
