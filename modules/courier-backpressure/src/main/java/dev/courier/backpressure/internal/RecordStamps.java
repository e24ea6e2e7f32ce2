package dev.courier.backpressure.internal;

import java.time.Duration;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;

/** Reads the timestamps of the records at given offsets: {@link OldestRecordReader} from Kafka. */
@FunctionalInterface
public interface RecordStamps {

  /**
   * Timestamps (epoch millis, {@link OldestRecordReader#NOTHING_WAITING}, or {@link
   * OldestRecordReader#UNREAD} when not read within {@code timeout}) of the first record at or
   * after each offset, aligned with the offsets given.
   *
   * @param wanted per partition, ascending distinct offsets
   */
  Map<TopicPartition, long[]> read(
      Map<TopicPartition, long[]> wanted, Map<TopicPartition, Long> logEnds, Duration timeout);
}
