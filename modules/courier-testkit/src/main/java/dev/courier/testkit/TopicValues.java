package dev.courier.testkit;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.StringDeserializer;

/** Reads a topic's values from its start in a group of its own, until they stop coming. */
final class TopicValues {

  private TopicValues() {}

  /**
   * At least {@code atLeast} values, and then whatever else arrives until nothing has for {@code
   * quiet} (zero: return at once), or what came before {@code timeout}.
   */
  static List<String> read(
      Map<String, ?> clientSettings, String topic, int atLeast, Duration quiet, Duration timeout) {
    Map<String, Object> config = new HashMap<>(clientSettings);
    config.put("group.id", UniqueNames.group("read"));
    config.put("auto.offset.reset", "earliest");
    List<String> values = new ArrayList<>();
    try (KafkaConsumer<String, String> consumer =
        new KafkaConsumer<>(config, new StringDeserializer(), new StringDeserializer())) {
      consumer.subscribe(List.of(topic));
      long deadline = System.nanoTime() + timeout.toNanos();
      long lastArrival = System.nanoTime();
      while (System.nanoTime() < deadline) {
        ConsumerRecords<String, String> batch = consumer.poll(Duration.ofMillis(100));
        batch.forEach(r -> values.add(r.value()));
        if (!batch.isEmpty()) {
          lastArrival = System.nanoTime();
        }
        if (values.size() >= atLeast && System.nanoTime() - lastArrival >= quiet.toNanos()) {
          break;
        }
      }
    }
    return values;
  }
}
