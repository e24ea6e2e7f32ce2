package dev.courier.testkit;

import dev.courier.testkit.internal.PgOutputDecoder;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * Proves the infrastructure is real end to end: records go through the broker and a consumer group
 * commits its offset; a logical replication slot in PostgreSQL yields a committed row change. Runs
 * from tests ({@code SmokeIT}) against whichever backend {@link CourierInfra} started.
 */
public final class SmokeScenario {

  private static final int RECORDS = 5;
  private static final Duration TIMEOUT = Duration.ofSeconds(60);

  private SmokeScenario() {}

  public static SmokeReport run(CourierInfra infra, TestDatabase database) {
    String topic = UniqueNames.topic("courier-smoke");
    String group = UniqueNames.group("courier-smoke");
    List<String> produced = produce(infra.kafka(), topic);
    List<String> consumed = consumeAndCommit(infra.kafka(), topic, group, produced.size());
    long committed = committedOffset(infra.kafka(), group, new TopicPartition(topic, 0));
    String slot = UniqueNames.slot("courier_smoke");
    LogicalChange change = captureInsert(database, slot);
    return new SmokeReport(
        infra.backend(),
        infra.backendReason(),
        topic,
        group,
        produced,
        consumed,
        committed,
        slot,
        change);
  }

  private static List<String> produce(KafkaBroker kafka, String topic) {
    kafka.createTopic(topic, 1);
    List<String> values = new ArrayList<>();
    try (KafkaProducer<String, String> producer =
        new KafkaProducer<>(
            kafka.producerConfig(), new StringSerializer(), new StringSerializer())) {
      for (int i = 0; i < RECORDS; i++) {
        String value = "smoke-" + i;
        producer.send(new ProducerRecord<>(topic, "key-" + i, value)).get(30, TimeUnit.SECONDS);
        values.add(value);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while producing", e);
    } catch (ExecutionException | TimeoutException e) {
      throw new IllegalStateException("producing to " + topic + " failed: " + e.getMessage(), e);
    }
    return values;
  }

  private static List<String> consumeAndCommit(
      KafkaBroker kafka, String topic, String group, int expected) {
    List<String> values = new ArrayList<>();
    try (KafkaConsumer<String, String> consumer =
        new KafkaConsumer<>(
            kafka.consumerConfig(group), new StringDeserializer(), new StringDeserializer())) {
      consumer.subscribe(List.of(topic));
      values.addAll(Polling.valuesUntil(consumer, expected, TIMEOUT));
      consumer.commitSync();
    }
    return values;
  }

  private static long committedOffset(KafkaBroker kafka, String group, TopicPartition partition) {
    try {
      Map<TopicPartition, OffsetAndMetadata> offsets =
          kafka
              .admin()
              .listConsumerGroupOffsets(group)
              .partitionsToOffsetAndMetadata()
              .get(30, TimeUnit.SECONDS);
      OffsetAndMetadata offset = offsets.get(partition);
      return offset == null ? -1 : offset.offset();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while reading offsets", e);
    } catch (ExecutionException | TimeoutException e) {
      throw new IllegalStateException("reading offsets of " + group + " failed: " + e, e);
    }
  }

  private static LogicalChange captureInsert(TestDatabase database, String slot) {
    String publication = slot + "_pub";
    try (Connection c = database.connection();
        Statement s = c.createStatement()) {
      s.execute("CREATE TABLE smoke_note (id integer PRIMARY KEY, note text NOT NULL)");
      s.execute("CREATE PUBLICATION " + publication + " FOR TABLE smoke_note");
      s.execute("SELECT pg_create_logical_replication_slot('" + slot + "', 'pgoutput')");
      s.execute("INSERT INTO smoke_note VALUES (1, 'hello from courier')");
      PgOutputDecoder decoder = new PgOutputDecoder();
      try (PreparedStatement ps =
          c.prepareStatement(
              "SELECT data FROM pg_logical_slot_get_binary_changes(?, NULL, NULL,"
                  + " 'proto_version', '1', 'publication_names', ?)")) {
        ps.setString(1, slot);
        ps.setString(2, publication);
        try (ResultSet rs = ps.executeQuery()) {
          LogicalChange change = null;
          while (rs.next()) {
            change = decoder.decode(rs.getBytes(1)).orElse(change);
          }
          return change;
        }
      }
    } catch (SQLException e) {
      throw new IllegalStateException(
          "logical replication in " + database.name() + " failed: " + e.getMessage(), e);
    }
  }
}
