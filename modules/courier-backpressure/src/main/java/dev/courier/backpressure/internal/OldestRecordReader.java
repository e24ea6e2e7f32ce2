package dev.courier.backpressure.internal;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * Reads the timestamp of the first record at or after given offsets: a group-less consumer assigns
 * every partition at once, seeks each to its lowest offset and reads forward, taking every wanted
 * offset of a partition in one pass (seeking ahead over long gaps). Offsets deleted by retention or
 * compaction land on the next available record (the consumer resets to the earliest); reaching the
 * log end without a record (only transaction markers left) means nothing is waiting.
 */
public final class OldestRecordReader implements RecordStamps, AutoCloseable {

  /** No record waits at or after the offset. */
  public static final long NOTHING_WAITING = -1;

  /** The offset was not read in time. */
  public static final long UNREAD = Long.MIN_VALUE;

  /** Records between two wanted offsets beyond which a seek is cheaper than reading on. */
  private static final int SEEK_GAP = 256;

  private final KafkaConsumer<byte[], byte[]> consumer;

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

  /** One partition's wanted offsets (ascending, distinct) and what was found for them. */
  private static final class Wanted {
    final long[] offsets;
    final long[] stamps;
    final long logEnd;
    int next;

    Wanted(long[] offsets, long logEnd) {
      this.offsets = offsets;
      this.stamps = new long[offsets.length];
      Arrays.fill(stamps, UNREAD);
      this.logEnd = logEnd;
    }

    boolean done() {
      return next == offsets.length;
    }
  }

  @Override
  public Map<TopicPartition, long[]> read(
      Map<TopicPartition, long[]> wanted, Map<TopicPartition, Long> logEnds, Duration timeout) {
    Map<TopicPartition, Wanted> open = new HashMap<>();
    Map<TopicPartition, long[]> result = new HashMap<>();
    wanted.forEach(
        (tp, offsets) -> {
          Wanted w = new Wanted(offsets, logEnds.getOrDefault(tp, Long.MAX_VALUE));
          result.put(tp, w.stamps);
          if (offsets.length > 0) {
            open.put(tp, w);
          }
        });
    if (open.isEmpty()) {
      return result;
    }
    consumer.assign(open.keySet());
    consumer.resume(consumer.paused());
    open.forEach((tp, w) -> consumer.seek(tp, w.offsets[0]));
    long deadline = System.nanoTime() + timeout.toNanos();
    List<TopicPartition> finished = new ArrayList<>();
    while (!open.isEmpty() && System.nanoTime() < deadline) {
      ConsumerRecords<byte[], byte[]> records = consumer.poll(Duration.ofMillis(100));
      for (TopicPartition tp : records.partitions()) {
        Wanted w = open.get(tp);
        if (w != null) {
          take(w, records.records(tp));
        }
      }
      for (Map.Entry<TopicPartition, Wanted> e : open.entrySet()) {
        TopicPartition tp = e.getKey();
        Wanted w = e.getValue();
        if (!w.done()) {
          long position;
          try {
            position = consumer.position(tp, Duration.ofMillis(100));
          } catch (org.apache.kafka.common.errors.TimeoutException notYet) {
            // An offset out of range is being reset to the earliest; the next poll tells.
            continue;
          }
          if (position >= w.logEnd) {
            Arrays.fill(w.stamps, w.next, w.offsets.length, NOTHING_WAITING);
            w.next = w.offsets.length;
          } else if (w.offsets[w.next] > position + SEEK_GAP) {
            consumer.seek(tp, w.offsets[w.next]);
          }
        }
        if (w.done()) {
          finished.add(tp);
        }
      }
      if (!finished.isEmpty()) {
        consumer.pause(finished);
        finished.forEach(open::remove);
        finished.clear();
      }
    }
    return result;
  }

  private static void take(Wanted w, List<ConsumerRecord<byte[], byte[]>> records) {
    for (ConsumerRecord<byte[], byte[]> r : records) {
      while (!w.done() && r.offset() >= w.offsets[w.next]) {
        w.stamps[w.next++] = r.timestamp();
      }
      if (w.done()) {
        return;
      }
    }
  }

  public long fetchRequests() {
    return MetricSums.requestTotal(consumer.metrics(), "consumer-metrics");
  }

  @Override
  public void close() {
    consumer.close(Duration.ofSeconds(5));
  }
}
