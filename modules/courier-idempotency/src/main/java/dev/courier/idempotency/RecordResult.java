package dev.courier.idempotency;

import java.util.Objects;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * The outcome of one record; {@code failure} is set exactly when the outcome is {@link
 * Outcome#FAILED}.
 */
public record RecordResult<K, V>(ConsumerRecord<K, V> record, Outcome outcome, Exception failure) {
  public RecordResult {
    Objects.requireNonNull(record, "record");
    Objects.requireNonNull(outcome, "outcome");
    if ((outcome == Outcome.FAILED) != (failure != null)) {
      throw new IllegalArgumentException("a failure goes with outcome FAILED and only with it");
    }
  }

  static <K, V> RecordResult<K, V> of(ConsumerRecord<K, V> record, Outcome outcome) {
    return new RecordResult<>(record, outcome, null);
  }

  static <K, V> RecordResult<K, V> failed(ConsumerRecord<K, V> record, Exception failure) {
    return new RecordResult<>(record, Outcome.FAILED, failure);
  }
}
