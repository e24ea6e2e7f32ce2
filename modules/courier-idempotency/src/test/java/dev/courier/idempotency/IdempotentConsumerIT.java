package dev.courier.idempotency;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.courier.core.CourierHeaders;
import dev.courier.testkit.CourierInfraTest;
import dev.courier.testkit.KafkaBroker;
import dev.courier.testkit.TestDatabase;
import dev.courier.testkit.UniqueNames;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;

/** Courier's consumer loop in batch mode against a real broker. */
@CourierInfraTest
class IdempotentConsumerIT {

  @Test
  void badRecordInTheMiddleOfABatchIsHandedOverAndTheOthersCommit(
      KafkaBroker kafka, Admin admin, TestDatabase db) throws Exception {
    String topic = produceFive(kafka);
    String group = UniqueNames.group("batch");
    List<ConsumerRecord<String, String>> parked = new ArrayList<>();

    try (IdempotentConsumer<String, String> consumer =
        consumer(kafka, db, topic, group, (record, failure) -> parked.add(record))) {
      consumer.runUntil(progress -> progress.handled() >= 5);
      assertThat(consumer.progress().applied()).isEqualTo(4);
      assertThat(consumer.progress().failed()).isEqualTo(1);
    }

    assertThat(parked).extracting(ConsumerRecord::offset).containsExactly(2L);
    assertThat(applied(db, topic)).isEqualTo(4);
    assertThat(committed(admin, group, topic)).isEqualTo(5);
  }

  @Test
  void failFastStopsAtTheBadRecordWithEarlierWorkCommitted(
      KafkaBroker kafka, Admin admin, TestDatabase db) throws Exception {
    String topic = produceFive(kafka);
    String group = UniqueNames.group("failfast");
    try (IdempotentConsumer<String, String> consumer =
        consumer(kafka, db, topic, group, RecordFailureHandler.failFast())) {
      assertThatThrownBy(() -> consumer.runUntil(progress -> progress.handled() >= 5))
          .isInstanceOf(RecordProcessingException.class)
          .hasMessageContaining("stopped at " + topic + "-0@2");
    }
    // The offset stays at the bad record. Records after it that shared its poll batch may already
    // be applied; after a fix and restart they come again and are skipped as duplicates.
    assertThat(committed(admin, group, topic)).isEqualTo(2);
    assertThat(applied(db, topic)).isBetween(2L, 4L);
  }

  private static IdempotentConsumer<String, String> consumer(
      KafkaBroker kafka,
      TestDatabase db,
      String topic,
      String group,
      RecordFailureHandler<String, String> onFailure)
      throws Exception {
    try (Connection c = db.connection();
        Statement s = c.createStatement()) {
      s.execute("CREATE TABLE IF NOT EXISTS batch_effects (topic text, value text)");
    }
    IdempotentHandler<String, String> handler =
        IdempotentHandler.<String, String>builder()
            .dataSource(db.dataSource())
            .config(Map.of(IdempotencyConfig.CONSUMER_NAME, group))
            .effect(
                (c, record) -> {
                  if (record.value().equals("bad")) {
                    throw new IllegalStateException("cannot apply 'bad'");
                  }
                  try (PreparedStatement ps =
                      c.prepareStatement("INSERT INTO batch_effects VALUES (?, ?)")) {
                    ps.setString(1, record.topic());
                    ps.setString(2, record.value());
                    ps.executeUpdate();
                  }
                })
            .build();
    return IdempotentConsumer.builder(
            withGroup(kafka, group), new StringDeserializer(), new StringDeserializer())
        .topics(List.of(topic))
        .handler(handler)
        .batchMode(true)
        .onFailure(onFailure)
        .build();
  }

  private static String produceFive(KafkaBroker kafka) throws Exception {
    String topic = UniqueNames.topic("batch");
    kafka.createTopic(topic, 1);
    try (KafkaProducer<String, String> producer =
        new KafkaProducer<>(
            kafka.producerConfig(), new StringSerializer(), new StringSerializer())) {
      for (int i = 0; i < 5; i++) {
        ProducerRecord<String, String> r =
            new ProducerRecord<>(topic, "k", i == 2 ? "bad" : "v" + i);
        r.headers().add(CourierHeaders.ID, ("op-" + i).getBytes(StandardCharsets.UTF_8));
        producer.send(r);
      }
      producer.flush();
    }
    return topic;
  }

  private static long applied(TestDatabase db, String topic) throws Exception {
    try (Connection c = db.connection();
        PreparedStatement ps =
            c.prepareStatement("SELECT count(*) FROM batch_effects WHERE topic = ?")) {
      ps.setString(1, topic);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return rs.getLong(1);
      }
    }
  }

  private static long committed(Admin admin, String group, String topic) throws Exception {
    return admin
        .listConsumerGroupOffsets(group)
        .partitionsToOffsetAndMetadata()
        .get(30, TimeUnit.SECONDS)
        .get(new TopicPartition(topic, 0))
        .offset();
  }

  private static Map<String, Object> withGroup(KafkaBroker kafka, String group) {
    Map<String, Object> settings = kafka.clientSettings();
    settings.put(IdempotentConsumerConfig.GROUP_ID, group);
    return settings;
  }
}
