package dev.courier.idempotency;

import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * Decides what happens to a record whose handling failed. Returning means the record is taken care
 * of (for example parked in a dead-letter topic) and the consumer moves past it; throwing stops the
 * consumer with progress committed up to, not including, the failed record.
 */
@FunctionalInterface
public interface RecordFailureHandler<K, V> {

  void onFailure(ConsumerRecord<K, V> record, Exception failure) throws Exception;

  /** Stops the consumer at the failed record, so nothing is skipped (the default). */
  static <K, V> RecordFailureHandler<K, V> failFast() {
    return (record, failure) -> {
      throw failure;
    };
  }
}
