package dev.courier.retry.internal;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;

/**
 * A forward that was neither delivered nor parked: its record is not done.
 *
 * @param record the record whose forward it was
 */
public record Undelivered(
    TopicPartition source,
    long offset,
    String target,
    Throwable cause,
    ConsumerRecord<byte[], byte[]> record) {
  public String describe() {
    return "cannot forward "
        + source
        + "@"
        + offset
        + " to "
        + target
        + " ("
        + cause
        + "); it is not committed and comes again";
  }
}
