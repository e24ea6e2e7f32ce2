package dev.courier.testkit;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/** Reading a known number of records in tests, bounded in time instead of slept for. */
public final class Polling {

  private static final Duration POLL = Duration.ofMillis(200);

  private Polling() {}

  /**
   * Polls until {@code count} records arrived or the timeout passed, and returns what arrived (the
   * caller asserts the count, so a shortfall shows what did come).
   */
  public static <K, V> List<ConsumerRecord<K, V>> pollUntil(
      Consumer<K, V> consumer, int count, Duration timeout) {
    List<ConsumerRecord<K, V>> records = new ArrayList<>();
    long deadline = System.nanoTime() + timeout.toNanos();
    while (records.size() < count && System.nanoTime() < deadline) {
      consumer.poll(POLL).forEach(records::add);
    }
    return records;
  }

  /** {@link #pollUntil} returning only the values. */
  public static <K, V> List<V> valuesUntil(Consumer<K, V> consumer, int count, Duration timeout) {
    return pollUntil(consumer, count, timeout).stream().map(ConsumerRecord::value).toList();
  }
}
