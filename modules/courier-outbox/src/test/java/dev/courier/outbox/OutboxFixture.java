package dev.courier.outbox;

import dev.courier.testkit.KafkaBroker;
import dev.courier.testkit.TestDatabase;
import dev.courier.testkit.UniqueNames;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.StringDeserializer;

/** A relay's settings on the testkit's broker and database, with names of its own. */
final class OutboxFixture {

  final String prefix = UniqueNames.topic("outbox").replace('-', '_');
  final Map<String, String> settings = new HashMap<>();

  OutboxFixture(KafkaBroker kafka, TestDatabase db) {
    URI jdbc = URI.create(db.jdbcUrl().substring("jdbc:".length()));
    settings.put(OutboxRelayConfig.NAME, prefix + "-relay");
    settings.put(OutboxRelayConfig.BOOTSTRAP_SERVERS, kafka.bootstrapServers());
    settings.put(OutboxRelayConfig.DB_HOST, jdbc.getHost());
    settings.put(OutboxRelayConfig.DB_PORT, String.valueOf(jdbc.getPort()));
    settings.put(OutboxRelayConfig.DB_NAME, db.name());
    settings.put(OutboxRelayConfig.DB_USER, db.username());
    settings.put(OutboxRelayConfig.DB_PASSWORD, db.password());
    settings.put(OutboxRelayConfig.TOPIC_PREFIX, prefix);
    settings.put(OutboxRelayConfig.SLOT, UniqueNames.slot("outbox"));
    settings.put(OutboxRelayConfig.PUBLICATION, UniqueNames.slot("outbox_pub"));
    settings.put(OutboxRelayConfig.OFFSET_TOPIC, prefix + ".offsets");
  }

  OutboxFixture with(String key, String value) {
    settings.put(key, value);
    return this;
  }

  String[] args() {
    return settings.entrySet().stream()
        .map(e -> e.getKey() + "=" + e.getValue())
        .toArray(String[]::new);
  }

  String topic(String aggregateType) {
    return prefix + "." + aggregateType;
  }

  /** Reads a topic from the start until {@code count} records or the timeout. */
  static List<ConsumerRecord<String, String>> read(
      KafkaBroker kafka, String topic, int count, Duration timeout) {
    List<ConsumerRecord<String, String>> records = new ArrayList<>();
    try (KafkaConsumer<String, String> consumer =
        new KafkaConsumer<>(
            kafka.consumerConfig(UniqueNames.group("reader")),
            new StringDeserializer(),
            new StringDeserializer())) {
      consumer.subscribe(List.of(topic));
      long deadline = System.nanoTime() + timeout.toNanos();
      while (records.size() < count && System.nanoTime() < deadline) {
        consumer.poll(Duration.ofMillis(200)).forEach(records::add);
      }
    }
    return records;
  }

  static String header(ConsumerRecord<?, ?> record, String name) {
    var header = record.headers().lastHeader(name);
    return header == null
        ? null
        : new String(header.value(), java.nio.charset.StandardCharsets.UTF_8);
  }
}
