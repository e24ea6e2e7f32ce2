package dev.courier.outbox.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.courier.outbox.OutboxRelayConfig;
import dev.courier.testkit.CourierInfraTest;
import dev.courier.testkit.KafkaBroker;
import dev.courier.testkit.UniqueNames;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Future;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;

/**
 * The relay's stored position as Debezium's Kafka offset store leaves it, read back from the end of
 * a real offset topic shared with another engine.
 */
@CourierInfraTest
class StoredPositionIT {

  @Test
  void theNewestPositionOfThisEngineIsFoundBehindThousandsOfAnotherEngines(KafkaBroker kafka)
      throws Exception {
    OutboxRelayConfig config = config(kafka);
    String topic = config.getString(OutboxRelayConfig.OFFSET_STORAGE_TOPIC);
    kafka.createTopic(topic, 3);
    try (KafkaProducer<byte[], byte[]> producer = producer(kafka)) {
      List<Future<RecordMetadata>> sent = new ArrayList<>();
      sent.add(send(producer, topic, 1, ours(config), position(100)));
      sent.add(send(producer, topic, 1, ours(config), position(200)));
      // Written as Connect's JsonConverter may space it: the same key.
      sent.add(
          send(
              producer,
              topic,
              1,
              "[\""
                  + config.getString(OutboxRelayConfig.RELAY_NAME)
                  + "\", {\"server\": \""
                  + cdc(config)
                  + "\"}]",
              position(250)));
      for (int i = 0; i < 3_000; i++) {
        sent.add(
            send(producer, topic, 1, key("another-relay", "another-cdc"), position(10_000 + i)));
      }
      // The same name under another server is another engine.
      sent.add(
          send(
              producer,
              topic,
              1,
              key(config.getString(OutboxRelayConfig.RELAY_NAME), "x"),
              position(9)));
      producer.flush();
      for (Future<RecordMetadata> f : sent) {
        f.get();
      }
    }

    assertThat(StoredPosition.read(config)).contains(StoredPosition.Position.at(250));
  }

  @Test
  void aTombstoneAsTheNewestRecordMeansNoStoredPosition(KafkaBroker kafka) throws Exception {
    OutboxRelayConfig config = config(kafka);
    String topic = config.getString(OutboxRelayConfig.OFFSET_STORAGE_TOPIC);
    kafka.createTopic(topic, 1);
    try (KafkaProducer<byte[], byte[]> producer = producer(kafka)) {
      send(producer, topic, 0, ours(config), position(300)).get();
      producer
          .send(new ProducerRecord<>(topic, 0, ours(config).getBytes(StandardCharsets.UTF_8), null))
          .get();
    }

    assertThat(StoredPosition.read(config)).isEmpty();
  }

  @Test
  void anEmptyTopicOrOnlyOtherEnginesMeansNoStoredPosition(KafkaBroker kafka) throws Exception {
    OutboxRelayConfig config = config(kafka);
    String topic = config.getString(OutboxRelayConfig.OFFSET_STORAGE_TOPIC);
    kafka.createTopic(topic, 2);
    assertThat(StoredPosition.read(config)).isEmpty();

    try (KafkaProducer<byte[], byte[]> producer = producer(kafka)) {
      send(producer, topic, 0, key("another-relay", "another-cdc"), position(5)).get();
      send(producer, topic, 1, "not json at all", position(6)).get();
      producer.flush();
    }
    assertThat(StoredPosition.read(config)).isEmpty();
  }

  private static OutboxRelayConfig config(KafkaBroker kafka) {
    return new OutboxRelayConfig(
        OutboxRelayConfig.settings(
            kafka.bootstrapServers(),
            "jdbc:postgresql://localhost:5432/unused",
            "u",
            "p",
            UniqueNames.topic("stored").replace('-', '_')));
  }

  private static String cdc(OutboxRelayConfig config) {
    return config.cdcPrefix();
  }

  private static String ours(OutboxRelayConfig config) {
    return key(config.getString(OutboxRelayConfig.RELAY_NAME), cdc(config));
  }

  /** Kafka Connect's offset key, as its JsonConverter writes it. */
  private static String key(String engine, String server) {
    return "[\"" + engine + "\",{\"server\":\"" + server + "\"}]";
  }

  /** Debezium PostgreSQL's offset value. */
  private static String position(long lsn) {
    return "{\"lsn_proc\":" + lsn + ",\"lsn_commit\":" + lsn + ",\"lsn\":" + lsn + "}";
  }

  private static KafkaProducer<byte[], byte[]> producer(KafkaBroker kafka) {
    Map<String, Object> config = kafka.producerConfig();
    return new KafkaProducer<>(config, new ByteArraySerializer(), new ByteArraySerializer());
  }

  private static Future<RecordMetadata> send(
      KafkaProducer<byte[], byte[]> producer,
      String topic,
      int partition,
      String key,
      String value) {
    return producer.send(
        new ProducerRecord<>(
            topic,
            partition,
            key.getBytes(StandardCharsets.UTF_8),
            value.getBytes(StandardCharsets.UTF_8)));
  }
}
