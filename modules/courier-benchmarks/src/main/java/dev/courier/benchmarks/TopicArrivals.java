package dev.courier.benchmarks;

import dev.courier.testkit.KafkaProcess;
import dev.courier.testkit.UniqueNames;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * Reads a topic on a thread of its own into {@link Arrivals}: each event's delay is from the write
 * time the writer put in its payload ({@code "at"}); a backlog event without one counts with none.
 */
final class TopicArrivals implements AutoCloseable {

  private final KafkaConsumer<byte[], byte[]> consumer;
  private final Thread thread;
  private final Arrivals arrivals = new Arrivals();
  private volatile boolean running = true;

  TopicArrivals(KafkaProcess kafka, String topic) {
    Map<String, Object> config =
        new HashMap<>(
            Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
                kafka.bootstrapServers(),
                ConsumerConfig.GROUP_ID_CONFIG,
                UniqueNames.group("prod-tracker"),
                ConsumerConfig.AUTO_OFFSET_RESET_CONFIG,
                "earliest",
                ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG,
                false,
                ConsumerConfig.MAX_POLL_RECORDS_CONFIG,
                2_000));
    consumer =
        new KafkaConsumer<>(config, new ByteArrayDeserializer(), new ByteArrayDeserializer());
    consumer.subscribe(List.of(topic));
    thread = new Thread(this::read, "prod-tracker");
    thread.setDaemon(true);
    thread.start();
  }

  Arrivals arrivals() {
    return arrivals;
  }

  private void read() {
    try {
      while (running) {
        for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(100))) {
          long now = System.currentTimeMillis();
          long at = at(r.value());
          arrivals.record(now, 1, at < 0 ? 0 : now - at);
        }
      }
    } catch (WakeupException e) {
      // closing
    } finally {
      consumer.close();
    }
  }

  /** The write time the writer put in the payload, or -1 for a backlog event. */
  private static long at(byte[] value) {
    String json = new String(value, StandardCharsets.UTF_8);
    int i = json.indexOf("\"at\":");
    if (i < 0) {
      return -1;
    }
    int end = i + 5;
    while (end < json.length() && Character.isDigit(json.charAt(end))) {
      end++;
    }
    return Long.parseLong(json.substring(i + 5, end));
  }

  @Override
  public void close() throws InterruptedException {
    running = false;
    consumer.wakeup();
    thread.join(10_000);
  }
}
