package dev.courier.backpressure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.courier.testkit.BackendMatrix;
import dev.courier.testkit.ConsumerGroupsTool;
import dev.courier.testkit.CourierInfraTest;
import dev.courier.testkit.KafkaBroker;
import dev.courier.testkit.UniqueNames;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.RecordsToDelete;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;

/** The monitor against a real broker, checked against Apache Kafka's own kafka-consumer-groups. */
@CourierInfraTest
class LagMonitorIT {

  private static final Duration TIMEOUT = Duration.ofSeconds(30);

  @Test
  @BackendMatrix
  void lagAndOffsetsAgreeWithKafkaConsumerGroups(KafkaBroker kafka) throws Exception {
    String topic = UniqueNames.topic("lag");
    kafka.createTopic(topic, 3);
    produce(kafka, topic, 3, 10, Instant.now().minusSeconds(120));
    String idle = UniqueNames.group("idle");
    commit(
        kafka.admin(),
        idle,
        Map.of(new TopicPartition(topic, 0), 4L, new TopicPartition(topic, 1), 10L));

    String active = UniqueNames.group("active");
    Map<String, Object> cc = new HashMap<>(kafka.consumerConfig(active));
    cc.put(ConsumerConfig.CLIENT_ID_CONFIG, "lag-it-active");
    try (KafkaConsumer<String, String> consumer =
            new KafkaConsumer<>(cc, new StringDeserializer(), new StringDeserializer());
        LagMonitor monitor = monitor(kafka, List.of(idle, active), Map.of())) {
      consumer.subscribe(List.of(topic));
      await().atMost(TIMEOUT).until(() -> !consumer.poll(Duration.ofMillis(200)).isEmpty());
      consumer.commitSync(Map.of(new TopicPartition(topic, 2), new OffsetAndMetadata(7)));

      LagSnapshot snapshot = monitor.tick();
      ConsumerGroupsTool tool = new ConsumerGroupsTool(kafka.bootstrapServers());
      for (String group : List.of(idle, active)) {
        List<ConsumerGroupsTool.Row> rows = tool.describe(group);
        List<PartitionLag> ours = snapshot.group(group).orElseThrow().partitions();
        assertThat(ours).hasSameSizeAs(rows).isNotEmpty();
        for (ConsumerGroupsTool.Row row : rows) {
          PartitionLag p =
              ours.stream()
                  .filter(o -> o.topic().equals(row.topic()) && o.partition() == row.partition())
                  .findFirst()
                  .orElseThrow();
          assertThat(p.logEndOffset()).as("log end of %s", row).isEqualTo(row.logEndOffset());
          assertThat(p.committedOffset())
              .as("offset of %s", row)
              .isEqualTo(row.currentOffset().orElse(-1));
          assertThat(p.lag()).as("lag of %s", row).isEqualTo(row.lag().orElse(0));
          assertThat(p.consumerId()).isEqualTo(row.consumerId());
          assertThat(p.host()).isEqualTo(row.host());
          assertThat(p.clientId()).isEqualTo(row.clientId());
        }
      }
      assertThat(snapshot.group(idle).orElseThrow().sumLag()).isEqualTo(6);
      assertThat(snapshot.group(active).orElseThrow().state()).isEqualTo("Stable");
      assertThat(snapshot.adminRequests()).isPositive();
    }
  }

  /**
   * Groups the monitor has not seen are asked for ten to an OffsetFetch (their sizes unknown, a
   * response for all at a million pairs was most of a tick's heap); once seen, by their sizes:
   * every group's offsets are right either way.
   */
  @Test
  void manyGroupsAreAskedForInBatchesAndEachGetsItsOwnOffsets(KafkaBroker kafka) throws Exception {
    String topic = UniqueNames.topic("many");
    kafka.createTopic(topic, 2);
    produce(kafka, topic, 2, 30, Instant.now().minusSeconds(600));
    List<String> groups = new java.util.ArrayList<>();
    for (int g = 0; g < 25; g++) {
      String group = UniqueNames.group("many-" + g);
      groups.add(group);
      commit(
          kafka.admin(),
          group,
          Map.of(new TopicPartition(topic, 0), (long) g, new TopicPartition(topic, 1), 30L));
    }
    try (LagMonitor monitor = monitor(kafka, groups, Map.of())) {
      LagSnapshot first = monitor.tick();
      LagSnapshot second = monitor.tick();
      for (LagSnapshot snapshot : List.of(first, second)) {
        for (int g = 0; g < 25; g++) {
          GroupLag lag = snapshot.group(groups.get(g)).orElseThrow();
          assertThat(lag.partitions()).hasSize(2);
          assertThat(lag.partitions().get(0).committedOffset()).isEqualTo(g);
          assertThat(lag.sumLag()).as(groups.get(g)).isEqualTo(30 - g);
        }
      }
      // The first tick asks more: OffsetFetches ten unknown groups each, log ends after them.
      assertThat(first.adminRequests()).isGreaterThan(second.adminRequests());
    }
  }

  @Test
  @BackendMatrix
  void oldestAgeIsTheAgeOfTheRecordAtTheCommittedOffset(KafkaBroker kafka) throws Exception {
    String topic = UniqueNames.topic("age");
    kafka.createTopic(topic, 1);
    TopicPartition tp = new TopicPartition(topic, 0);
    Instant first = Instant.now().minusSeconds(600);
    List<Long> stamps = produce(kafka, topic, 1, 10, first);
    // A committed transaction after them: record at 10, its commit marker at 11, log end 12.
    try (KafkaProducer<String, String> tx = transactional(kafka)) {
      tx.initTransactions();
      tx.beginTransaction();
      tx.send(new ProducerRecord<>(topic, 0, System.currentTimeMillis(), "k", "v")).get();
      tx.commitTransaction();
    }
    // The coordinator writes the commit marker after commitTransaction() returns: wait for it,
    // or the log end is still 11 (seen once on the Testcontainers backend).
    await()
        .atMost(Duration.ofSeconds(30))
        .until(
            () ->
                kafka
                    .admin()
                    .listOffsets(Map.of(tp, org.apache.kafka.clients.admin.OffsetSpec.latest()))
                    .partitionResult(tp)
                    .get(30, TimeUnit.SECONDS)
                    .offset(),
            end -> end == 12);
    String group = UniqueNames.group("age");
    // A generous read timeout: this test is about which record's age is reported, not how fast.
    // On the Testcontainers backend a 2 s read once missed its time, and the monitor then reports
    // the older record it last read there (AgeBook logs it), not the 0 asserted at offset 11.
    try (LagMonitor monitor =
        monitor(
            kafka,
            List.of(group),
            Map.of(
                MonitorConfig.OLDEST_AGE_CACHE_MS,
                "0",
                MonitorConfig.OLDEST_AGE_READ_TIMEOUT_MS,
                "30000"))) {
      commit(kafka.admin(), group, Map.of(tp, 4L));
      LagSnapshot s = monitor.tick();
      PartitionLag p = s.group(group).orElseThrow().partitions().get(0);
      assertThat(p.lag()).isEqualTo(8);
      assertThat(p.oldestAge())
          .isEqualTo(Duration.between(Instant.ofEpochMilli(stamps.get(4)), s.at()));
      assertThat(p.ageEstimated()).isFalse();

      // Only the transaction marker is left: lag 1 as Kafka counts it, but nothing waits.
      commit(kafka.admin(), group, Map.of(tp, 11L));
      p = monitor.tick().group(group).orElseThrow().partitions().get(0);
      assertThat(p.lag()).isEqualTo(1);
      assertThat(p.oldestAge()).isZero();

      commit(kafka.admin(), group, Map.of(tp, 12L));
      p = monitor.tick().group(group).orElseThrow().partitions().get(0);
      assertThat(p.lag()).isZero();
      assertThat(p.oldestAge()).isZero();

      // Retention removes the head the group still needs: the age follows the next record.
      commit(kafka.admin(), group, Map.of(tp, 2L));
      kafka
          .admin()
          .deleteRecords(Map.of(tp, RecordsToDelete.beforeOffset(6)))
          .all()
          .get(30, TimeUnit.SECONDS);
      s = monitor.tick();
      p = s.group(group).orElseThrow().partitions().get(0);
      assertThat(p.oldestAge())
          .isEqualTo(Duration.between(Instant.ofEpochMilli(stamps.get(6)), s.at()));
    }
  }

  @Test
  void aStoppedConsumerShowsStopWhileItsLagAndAgeKeepGrowing(KafkaBroker kafka) throws Exception {
    String topic = UniqueNames.topic("stop");
    kafka.createTopic(topic, 1);
    String group = UniqueNames.group("stop");
    produce(kafka, topic, 1, 5, Instant.now().minusSeconds(60));
    try (KafkaConsumer<String, String> consumer =
        new KafkaConsumer<>(
            kafka.consumerConfig(group), new StringDeserializer(), new StringDeserializer())) {
      consumer.subscribe(List.of(topic));
      await().atMost(TIMEOUT).until(() -> !consumer.poll(Duration.ofMillis(200)).isEmpty());
      consumer.commitSync();
    }
    try (LagMonitor monitor =
        monitor(
            kafka,
            List.of(group),
            Map.of(MonitorConfig.TICK_INTERVAL_MS, "200", MonitorConfig.WINDOW_MS, "2000"))) {
      assertThat(monitor.tick().group(group).orElseThrow().verdict().status()).isEqualTo(Status.OK);
      produce(kafka, topic, 1, 3, Instant.now().minusSeconds(30));
      GroupLag stopped =
          await()
              .atMost(TIMEOUT)
              .pollInterval(Duration.ofMillis(200))
              .until(
                  () -> monitor.tick().group(group).orElseThrow(),
                  g -> g.verdict().status() == Status.ERR);
      PartitionLag p = stopped.partitions().get(0);
      assertThat(p.verdict().status()).isEqualTo(Status.STOP);
      assertThat(p.verdict().reason()).contains("no member consuming");
      assertThat(p.lag()).isEqualTo(3);

      // Unlike a lag-only view, the age keeps growing while nobody consumes.
      Duration before = p.oldestAge();
      Instant beforeAt = monitor.latest().at();
      await().atMost(TIMEOUT).until(() -> monitor.tick().at().isAfter(beforeAt.plusMillis(500)));
      PartitionLag later = monitor.latest().group(group).orElseThrow().partitions().get(0);
      assertThat(later.lag()).isEqualTo(3);
      assertThat(later.verdict().status()).isEqualTo(Status.STOP);
      assertThat(later.oldestAge())
          .isEqualTo(before.plus(Duration.between(beforeAt, monitor.latest().at())));
    }
  }

  static LagMonitor monitor(KafkaBroker kafka, List<String> groups, Map<String, String> extra) {
    Map<String, Object> settings = new HashMap<>(extra);
    settings.put(MonitorConfig.BOOTSTRAP_SERVERS, kafka.bootstrapServers());
    settings.put(MonitorConfig.GROUPS, String.join(",", groups));
    settings.putIfAbsent(MonitorConfig.TICK_INTERVAL_MS, "500");
    settings.putIfAbsent(MonitorConfig.WINDOW_MS, "5000");
    return LagMonitor.create(settings, new SimpleMeterRegistry(), Clock.systemUTC());
  }

  /** Produces {@code perPartition} records to each partition, 10 s apart from {@code first}. */
  static List<Long> produce(
      KafkaBroker kafka, String topic, int partitions, int perPartition, Instant first)
      throws Exception {
    List<Long> stamps = new java.util.ArrayList<>();
    try (KafkaProducer<String, String> producer =
        new KafkaProducer<>(
            kafka.producerConfig(), new StringSerializer(), new StringSerializer())) {
      for (int i = 0; i < perPartition; i++) {
        long ts = first.plusSeconds(10L * i).toEpochMilli();
        stamps.add(ts);
        for (int p = 0; p < partitions; p++) {
          producer.send(new ProducerRecord<>(topic, p, ts, "k" + i, "v" + i));
        }
      }
      producer.flush();
    }
    return stamps;
  }

  static void commit(Admin admin, String group, Map<TopicPartition, Long> offsets)
      throws Exception {
    Map<TopicPartition, OffsetAndMetadata> om = new HashMap<>();
    offsets.forEach((tp, o) -> om.put(tp, new OffsetAndMetadata(o)));
    admin.alterConsumerGroupOffsets(group, om).all().get(30, TimeUnit.SECONDS);
  }

  private static KafkaProducer<String, String> transactional(KafkaBroker kafka) {
    Map<String, Object> config = new HashMap<>(kafka.producerConfig());
    config.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, UniqueNames.group("tx"));
    return new KafkaProducer<>(config, new StringSerializer(), new StringSerializer());
  }
}
