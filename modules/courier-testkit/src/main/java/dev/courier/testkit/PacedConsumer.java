package dev.courier.testkit;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * A consumer with a fixed capacity: each record costs {@code 1 / recordsPerSecond} of simulated
 * work, and offsets are committed after every poll. Offer it more than that and a backlog builds,
 * which is what overload scenarios need.
 */
public final class PacedConsumer {

  private PacedConsumer() {}

  /** Consumes {@code topic} in the group of {@code consumerConfig} while {@code running}. */
  public static void run(
      Map<String, Object> consumerConfig,
      String topic,
      int recordsPerSecond,
      BooleanSupplier running) {
    Map<String, Object> config = new HashMap<>(consumerConfig);
    config.putIfAbsent(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, Math.max(1, recordsPerSecond / 4));
    long perRecord = TimeUnit.SECONDS.toNanos(1) / recordsPerSecond;
    try (KafkaConsumer<String, String> consumer =
        new KafkaConsumer<>(config, new StringDeserializer(), new StringDeserializer())) {
      consumer.subscribe(List.of(topic));
      long next = System.nanoTime();
      while (running.getAsBoolean()) {
        for (ConsumerRecord<String, String> ignored : consumer.poll(Duration.ofMillis(100))) {
          // Paced work: the consumer's capacity is the point, not a wait.
          next += perRecord;
          LockSupport.parkNanos(next - System.nanoTime());
        }
        next = Math.max(next, System.nanoTime() - perRecord);
        consumer.commitSync();
      }
    }
  }
}
