package dev.courier.retry.internal;

import java.util.concurrent.Future;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;

/**
 * What the ladder tells key order as it settles records, each in its turn ({@code
 * retry.ordering=key}); {@link #NONE} for {@code none}.
 */
public interface OrderHooks {

  OrderHooks NONE = new OrderHooks() {};

  /**
   * Whether a record decided without a call (parked, unreadable) must wait behind its key instead:
   * a call of its key earlier in its run failed meanwhile and blocked the key. When it must, it now
   * waits (as {@link #follow} would have it).
   */
  default boolean waitsNow(ConsumerRecord<byte[], byte[]> record) {
    return false;
  }

  /** A main-topic record waits behind its key's chain. */
  default void follow(ConsumerRecord<byte[], byte[]> record) {}

  /** A main-topic record read again that its key's chain already holds. */
  default void seen(ConsumerRecord<byte[], byte[]> record) {}

  /** A record goes to tier {@code tier + 1}: before it is forwarded. */
  default void retrying(ConsumerRecord<byte[], byte[]> record, LadderState state, int tier) {}

  /** A record's call succeeded. */
  default void succeeded(ConsumerRecord<byte[], byte[]> record, LadderState state, int tier) {}

  /** A record went to the DLT; {@code letter} is its dead letter's send. */
  default void deadLettered(
      ConsumerRecord<byte[], byte[]> record,
      LadderState state,
      int tier,
      Hop.Failure failure,
      Future<RecordMetadata> letter) {}
}
