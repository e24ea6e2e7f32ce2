package dev.courier.idempotency;

import java.sql.Connection;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * The business effect of one record, run on the connection that also records the operation key, so
 * both commit together or neither does. It must not commit or roll back itself.
 */
@FunctionalInterface
public interface RecordEffect<K, V> {

  void apply(Connection connection, ConsumerRecord<K, V> record) throws Exception;
}
