package dev.courier.backpressure.internal;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * Reads the timestamp of the first record at or after a committed offset: a group-less consumer
 * assigns the partitions, seeks, and takes the first record it gets. Offsets deleted by retention
 * or compaction land on the next available record (the consumer resets to the earliest); a position
 * that reaches the log end without a record (only transaction markers left) means nothing is
 * waiting. Partitions needing several offsets (groups at different positions) take one round each.
 * Timestamps are cached for {@code cacheTtl}: a record's timestamp never changes, but retention may
 * delete it, so the cache bounds how stale that can be.
 */
public final class OldestRecordReader implements AutoCloseable {

  /** No record waits at or after the offset. */
  public static final long NOTHING_WAITING = -1;

  private final KafkaConsumer<byte[], byte[]> consumer;

  /** A partition and an offset in it. */
  public record Position(TopicPartition partition, long offset) {}

  public OldestRecordReader(Map<String, Object> clientConfig) {
    Map<String, Object> config = new HashMap<>(clientConfig);
    config.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
    config.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
    config.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    config.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    config.putIfAbsent(ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, 16 * 1024);
    config.putIfAbsent(ConsumerConfig.CLIENT_ID_CONFIG, "courier-monitor-age-reader");
    config.remove(ConsumerConfig.GROUP_ID_CONFIG);
    this.consumer = new KafkaConsumer<>(config);
  }

  /**
   * Timestamps (epoch millis, or {@link #NOTHING_WAITING}) of the first record at or after each
   * position; positions not read within {@code timeout} are missing from the result.
   */
  public Map<Position, Long> read(
      Set<Position> positions, Map<TopicPartition, Long> logEnds, Duration timeout) {
    Map<Position, Long> result = new HashMap<>();
    Map<TopicPartition, TreeSet<Long>> todo = new HashMap<>();
    for (Position p : positions) {
      todo.computeIfAbsent(p.partition(), tp -> new TreeSet<>()).add(p.offset());
    }
    long deadline = System.nanoTime() + timeout.toNanos();
    while (!todo.isEmpty() && System.nanoTime() < deadline) {
      Map<TopicPartition, Long> round = new HashMap<>();
      todo.forEach((tp, offsets) -> round.put(tp, offsets.pollFirst()));
      todo.values().removeIf(TreeSet::isEmpty);
      result.putAll(readRound(round, logEnds, deadline));
    }
    return result;
  }

  private Map<Position, Long> readRound(
      Map<TopicPartition, Long> round, Map<TopicPartition, Long> logEnds, long deadline) {
    Map<Position, Long> found = new HashMap<>();
    consumer.assign(round.keySet());
    consumer.resume(consumer.paused());
    round.forEach(consumer::seek);
    Set<TopicPartition> open = new HashSet<>(round.keySet());
    while (!open.isEmpty() && System.nanoTime() < deadline) {
      ConsumerRecords<byte[], byte[]> records = consumer.poll(Duration.ofMillis(100));
      for (TopicPartition tp : new ArrayList<>(open)) {
        long target = round.get(tp);
        List<ConsumerRecord<byte[], byte[]>> batch = records.records(tp);
        Long timestamp = null;
        for (ConsumerRecord<byte[], byte[]> r : batch) {
          if (r.offset() >= target) {
            timestamp = r.timestamp();
            break;
          }
        }
        if (timestamp == null
            && consumer.position(tp) >= logEnds.getOrDefault(tp, Long.MAX_VALUE)) {
          timestamp = NOTHING_WAITING;
        }
        if (timestamp != null) {
          Position position = new Position(tp, target);
          found.put(position, timestamp);
          open.remove(tp);
          consumer.pause(List.of(tp));
        }
      }
    }
    return found;
  }

  public long fetchRequests() {
    return MetricSums.requestTotal(consumer.metrics(), "consumer-metrics");
  }

  @Override
  public void close() {
    consumer.close(Duration.ofSeconds(5));
  }
}
