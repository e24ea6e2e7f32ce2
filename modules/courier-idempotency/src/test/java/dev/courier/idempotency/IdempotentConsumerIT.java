package dev.courier.idempotency;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.courier.core.CourierHeaders;
import dev.courier.testkit.CommitHistory;
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
import java.util.function.IntFunction;
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

  /**
   * Single mode handles a poll partition by partition. A transient failure in the second partition
   * after the first was settled reads again only the second: reading the first again marked its
   * records done again, below what was already committed, and the group's position moved back.
   */
  @Test
  void aTransientFailureInOnePartitionReadsAgainOnlyWhatWasNotDone(
      KafkaBroker kafka, TestDatabase db) throws Exception {
    String topic = UniqueNames.topic("single");
    String group = UniqueNames.group("single");
    kafka.createTopic(topic, 2);
    produce(kafka, 40, i -> new ProducerRecord<>(topic, i % 2, "k", "v" + i));
    try (Connection c = db.connection();
        Statement s = c.createStatement()) {
      s.execute("CREATE TABLE IF NOT EXISTS single_effects (value text)");
    }
    // The first record of whichever partition comes second in a poll fails once, as a
    // serialization failure does.
    java.util.Set<Integer> seen = new java.util.HashSet<>();
    java.util.concurrent.atomic.AtomicBoolean failed =
        new java.util.concurrent.atomic.AtomicBoolean();
    IdempotentHandler<String, String> handler =
        IdempotentHandler.<String, String>builder()
            .dataSource(db.dataSource())
            .config(Map.of(IdempotencyConfig.CONSUMER_NAME, group))
            .effect(
                (c, record) -> {
                  if (seen.add(record.partition()) && seen.size() == 2 && !failed.getAndSet(true)) {
                    throw new java.sql.SQLTransientException("could not serialize", "40001");
                  }
                  try (PreparedStatement ps =
                      c.prepareStatement("INSERT INTO single_effects VALUES (?)")) {
                    ps.setString(1, record.value());
                    ps.executeUpdate();
                  }
                })
            .build();
    try (IdempotentConsumer<String, String> consumer =
        IdempotentConsumer.builder(
                withGroup(kafka, group), new StringDeserializer(), new StringDeserializer())
            .topics(List.of(topic))
            .handler(handler)
            .batchMode(false)
            .build()) {
      consumer.runUntil(progress -> progress.applied() >= 40);
      assertThat(consumer.progress().duplicates()).as("nothing settled is read again").isZero();
    }
    assertThat(failed).isTrue();
    try (Connection c = db.connection();
        Statement s = c.createStatement();
        ResultSet rs =
            s.executeQuery("SELECT count(*), count(DISTINCT value) FROM single_effects")) {
      rs.next();
      assertThat(rs.getLong(1)).isEqualTo(40);
      assertThat(rs.getLong(2)).isEqualTo(40);
    }
    assertThat(CommitHistory.of(kafka, group).backwardMoves())
        .as("committed offsets only move forward")
        .isEmpty();
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
    produce(kafka, 5, i -> new ProducerRecord<>(topic, "k", i == 2 ? "bad" : "v" + i));
    return topic;
  }

  /** Records 0 to {@code count - 1}, each with operation key {@code op-<i>}. */
  private static void produce(
      KafkaBroker kafka, int count, IntFunction<ProducerRecord<String, String>> record) {
    try (KafkaProducer<String, String> producer =
        new KafkaProducer<>(
            kafka.producerConfig(), new StringSerializer(), new StringSerializer())) {
      for (int i = 0; i < count; i++) {
        ProducerRecord<String, String> r = record.apply(i);
        r.headers().add(CourierHeaders.ID, ("op-" + i).getBytes(StandardCharsets.UTF_8));
        producer.send(r);
      }
      producer.flush();
    }
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
