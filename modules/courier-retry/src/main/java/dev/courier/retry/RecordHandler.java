package dev.courier.retry;

import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * The work done for one record. Throw to fail the attempt; the classifier decides what follows. The
 * record carries the original topic, partition, offset and headers, also on retries.
 */
@FunctionalInterface
public interface RecordHandler<K, V> {
  void handle(ConsumerRecord<K, V> record) throws Exception;
}
