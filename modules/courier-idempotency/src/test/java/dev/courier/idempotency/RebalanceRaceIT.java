package dev.courier.idempotency;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.courier.core.CourierHeaders;
import dev.courier.testkit.BackendMatrix;
import dev.courier.testkit.CourierInfraTest;
import dev.courier.testkit.KafkaBroker;
import dev.courier.testkit.TestDatabase;
import dev.courier.testkit.UniqueNames;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.MemberDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;

/**
 * Two consumers of one group race on one key: the first stalls past max.poll.interval.ms inside its
 * effect, its partition moves to the second, then it resumes. The effect lands once, and the stale
 * consumer's offset commit is refused.
 */
@CourierInfraTest
@BackendMatrix
class RebalanceRaceIT {

  @Test
  void staleConsumerAppliesNothingTwiceAndItsCommitIsRefused(
      KafkaBroker kafka, Admin admin, TestDatabase db) throws Exception {
    String topic = UniqueNames.topic("race");
    String group = UniqueNames.group("billing");
    kafka.createTopic(topic, 1);
    try (Connection c = db.connection();
        Statement s = c.createStatement()) {
      s.execute(
          "CREATE TABLE IF NOT EXISTS race_effects (operation text NOT NULL, by_client text)");
    }
    try (KafkaProducer<String, String> producer =
        new KafkaProducer<>(
            kafka.producerConfig(), new StringSerializer(), new StringSerializer())) {
      ProducerRecord<String, String> r = new ProducerRecord<>(topic, "17", "17:10");
      r.headers().add(CourierHeaders.ID, "race-op".getBytes(StandardCharsets.UTF_8));
      producer.send(r).get(30, TimeUnit.SECONDS);
    }

    CountDownLatch aStalled = new CountDownLatch(1);
    CountDownLatch releaseA = new CountDownLatch(1);
    IdempotentConsumer<String, String> a =
        consumer(
            kafka,
            db,
            topic,
            group,
            "consumer-a",
            Duration.ofSeconds(5),
            () -> {
              aStalled.countDown();
              releaseA.await(60, TimeUnit.SECONDS);
            });
    IdempotentConsumer<String, String> b =
        consumer(kafka, db, topic, group, "consumer-b", Duration.ofMinutes(1), () -> {});

    ExecutorService threads = Executors.newFixedThreadPool(2);
    try {
      Future<?> runA = threads.submit(a::run);
      assertThat(aStalled.await(60, TimeUnit.SECONDS))
          .as("A holds the record in its effect")
          .isTrue();
      Future<?> runB = threads.submit(b::run);

      // A misses its poll deadline, leaves the group, and the partition moves to B.
      await()
          .atMost(Duration.ofSeconds(60))
          .until(() -> assignedTo(admin, group, new TopicPartition(topic, 0)).equals("consumer-b"));
      releaseA.countDown();

      await()
          .atMost(Duration.ofSeconds(60))
          .until(() -> a.progress().rejectedCommits() == 1 && b.progress().duplicates() == 1);

      assertThat(a.progress().applied()).isEqualTo(1);
      assertThat(b.progress().applied()).isZero();
      try (Connection c = db.connection();
          PreparedStatement ps =
              c.prepareStatement(
                  "SELECT count(*), min(by_client) FROM race_effects WHERE operation = ?")) {
        ps.setString(1, group);
        try (ResultSet rs = ps.executeQuery()) {
          rs.next();
          assertThat(rs.getLong(1)).as("the effect landed once").isEqualTo(1);
          assertThat(rs.getString(2)).isEqualTo("consumer-a");
        }
      }
      await()
          .atMost(Duration.ofSeconds(30))
          .until(
              () ->
                  admin
                          .listConsumerGroupOffsets(group)
                          .partitionsToOffsetAndMetadata()
                          .get()
                          .get(new TopicPartition(topic, 0))
                      != null);
      assertThat(
              admin
                  .listConsumerGroupOffsets(group)
                  .partitionsToOffsetAndMetadata()
                  .get()
                  .get(new TopicPartition(topic, 0))
                  .offset())
          .isEqualTo(1);
      a.close();
      b.close();
      runA.get(30, TimeUnit.SECONDS);
      runB.get(30, TimeUnit.SECONDS);
    } finally {
      releaseA.countDown();
      threads.shutdownNow();
    }
  }

  /** A stall hook, run inside the effect before it writes. */
  interface Stall {
    void run() throws Exception;
  }

  private static IdempotentConsumer<String, String> consumer(
      KafkaBroker kafka,
      TestDatabase db,
      String topic,
      String group,
      String clientId,
      Duration maxPollInterval,
      Stall stall) {
    IdempotentHandler<String, String> handler =
        IdempotentHandler.<String, String>builder()
            .dataSource(db.dataSource())
            .consumerName("billing-" + group)
            .effect(
                (c, record) -> {
                  stall.run();
                  try (PreparedStatement ps =
                      c.prepareStatement("INSERT INTO race_effects VALUES (?, ?)")) {
                    ps.setString(1, group);
                    ps.setString(2, clientId);
                    ps.executeUpdate();
                  }
                })
            .build();
    Map<String, Object> config = kafka.clientSettings();
    config.put(IdempotentConsumerConfig.GROUP_ID, group);
    config.put("kafka." + ConsumerConfig.CLIENT_ID_CONFIG, clientId);
    config.put(
        "kafka." + ConsumerConfig.MAX_POLL_INTERVAL_MS_CONFIG, (int) maxPollInterval.toMillis());
    return IdempotentConsumer.builder(config, new StringDeserializer(), new StringDeserializer())
        .topics(List.of(topic))
        .handler(handler)
        .pollTimeout(Duration.ofMillis(200))
        .build();
  }

  private static String assignedTo(Admin admin, String group, TopicPartition partition)
      throws Exception {
    ConsumerGroupDescription description =
        admin.describeConsumerGroups(List.of(group)).all().get(10, TimeUnit.SECONDS).get(group);
    for (MemberDescription member : description.members()) {
      if (member.assignment().topicPartitions().contains(partition)) {
        return member.clientId();
      }
    }
    return "";
  }
}
