package dev.courier.idempotency.internal;

import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.common.TopicPartition;

/**
 * Where partitions must be read again from: the first record not done of each partition a transient
 * failure stopped, so nothing after it is skipped (the earliest offset per partition wins).
 */
public final class Rewind {

  private final Map<TopicPartition, Long> from = new HashMap<>();

  /** Partitions whose fetched records were all settled: nothing of them is read again. */
  private final Set<TopicPartition> settled = new HashSet<>();

  /** The partition is read again from {@code offset}. */
  public void from(TopicPartition partition, long offset) {
    from.merge(partition, offset, Math::min);
  }

  /** Every fetched record of the partition was settled (and its offset marked done). */
  public void settled(TopicPartition partition) {
    settled.add(partition);
  }

  /**
   * The partitions of these fetched records that were not handled are read again from their first
   * one. One settled whole, or read again from a record already named, keeps that: reading settled
   * records again would mark their offsets done again, below what is committed.
   */
  public void fetched(ConsumerRecords<?, ?> records) {
    for (TopicPartition partition : records.partitions()) {
      if (!settled.contains(partition)) {
        from.putIfAbsent(partition, records.records(partition).get(0).offset());
      }
    }
  }

  public boolean isEmpty() {
    return from.isEmpty();
  }

  /** Seeks the partitions still assigned; a revoked one's new owner reads its committed offset. */
  public void apply(Consumer<?, ?> consumer) {
    Set<TopicPartition> owned = consumer.assignment();
    from.forEach(
        (partition, offset) -> {
          if (owned.contains(partition)) {
            consumer.seek(partition, offset);
          }
        });
    from.clear();
  }
}
