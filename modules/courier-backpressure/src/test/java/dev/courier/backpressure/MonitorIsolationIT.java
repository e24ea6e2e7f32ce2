package dev.courier.backpressure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

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
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.Test;

/**
 * One group's trouble costs only its own rows: a group that does not exist yet, a topic deleted
 * under a group, a group on the new consumer protocol next to a classic one; and groups picked by
 * pattern come and go without a restart.
 */
@CourierInfraTest
class MonitorIsolationIT {

  private static final Duration TIMEOUT = Duration.ofSeconds(60);

  @Test
  void aMissingGroupIsReportedUnknownAndTheOthersAsUsualUntilItExists(KafkaBroker kafka)
      throws Exception {
    String topic = UniqueNames.topic("iso");
    String exists = UniqueNames.group("exists");
    String missing = UniqueNames.group("missing");
    kafka.createTopic(topic, 1);
    LagMonitorIT.produce(kafka, topic, 1, 5, Instant.now().minusSeconds(60));
    LagMonitorIT.commit(kafka.admin(), exists, Map.of(new TopicPartition(topic, 0), 2L));
    try (LagMonitor monitor =
        monitor(kafka, Map.of(MonitorConfig.GROUPS, exists + "," + missing))) {
      LagSnapshot s = monitor.tick();
      assertThat(monitor.health().ready()).as("Kafka answers: the monitor is healthy").isTrue();
      assertThat(s.group(exists).orElseThrow().sumLag()).isEqualTo(3);
      GroupLag unknown = s.group(missing).orElseThrow();
      assertThat(unknown.verdict().status()).isEqualTo(Status.UNKNOWN);
      assertThat(unknown.verdict().reason()).startsWith("not found");
      assertThat(unknown.state()).isEqualTo("NotFound");
      // Set its offsets in advance, as an operator would: it is reported from the next tick on.
      LagMonitorIT.commit(kafka.admin(), missing, Map.of(new TopicPartition(topic, 0), 4L));
      assertThat(monitor.tick().group(missing).orElseThrow().sumLag()).isEqualTo(1);
    }
  }

  @Test
  void aDeletedTopicCostsOnlyItsOwnRows(KafkaBroker kafka) throws Exception {
    String kept = UniqueNames.topic("kept");
    String deleted = UniqueNames.topic("deleted");
    String group = UniqueNames.group("iso");
    kafka.createTopic(kept, 1);
    kafka.createTopic(deleted, 1);
    LagMonitorIT.produce(kafka, kept, 1, 3, Instant.now());
    LagMonitorIT.produce(kafka, deleted, 1, 3, Instant.now());
    TopicPartition gone = new TopicPartition(deleted, 0);
    LagMonitorIT.commit(kafka.admin(), group, Map.of(new TopicPartition(kept, 0), 1L, gone, 1L));
    try (LagMonitor monitor = monitor(kafka, Map.of(MonitorConfig.GROUPS, group))) {
      assertThat(monitor.tick().group(group).orElseThrow().sumLag()).isEqualTo(4);
      kafka.admin().deleteTopics(List.of(deleted)).all().get(30, TimeUnit.SECONDS);
      // Until the coordinator drops the deleted topic's offsets, its row is UNKNOWN with the
      // reason (while the deletion is under way the metadata may still list the topic without a
      // leader); then it goes. Every tick succeeds and the kept topic is reported throughout.
      GroupLag g =
          await()
              .atMost(TIMEOUT)
              .until(
                  () -> {
                    GroupLag now = monitor.tick().group(group).orElseThrow();
                    assertThat(now.partitions())
                        .filteredOn(p -> p.topic().equals(kept))
                        .singleElement()
                        .satisfies(p -> assertThat(p.lag()).isEqualTo(2));
                    assertThat(now.partitions())
                        .filteredOn(p -> p.topic().equals(deleted))
                        .allSatisfy(
                            p -> {
                              assertThat(p.known()).isFalse();
                              assertThat(p.verdict().reason())
                                  .containsAnyOf(
                                      "topic deleted or unknown",
                                      "no answer from the partition's leader");
                            });
                    assertThat(monitor.health().ready()).isTrue();
                    return now;
                  },
                  now -> now.partitions().size() == 1);
      assertThat(g.sumLag()).isEqualTo(2);
    }
  }

  @Test
  void aGroupOnTheNewConsumerProtocolIsReportedNextToAClassicOne(KafkaBroker kafka)
      throws Exception {
    String topic = UniqueNames.topic("kip848");
    String modern = UniqueNames.group("modern");
    String classic = UniqueNames.group("classic");
    kafka.createTopic(topic, 2);
    LagMonitorIT.produce(kafka, topic, 2, 4, Instant.now().minusSeconds(30));
    LagMonitorIT.commit(kafka.admin(), classic, Map.of(new TopicPartition(topic, 0), 1L));
    AtomicBoolean stop = new AtomicBoolean();
    ExecutorService thread = Executors.newSingleThreadExecutor();
    try {
      // A live member on the KIP-848 protocol that commits nothing: it owns both partitions.
      java.util.concurrent.Future<?> member =
          thread.submit(
              () -> {
                Map<String, Object> config = new HashMap<>(kafka.consumerConfig(modern));
                config.put(ConsumerConfig.GROUP_PROTOCOL_CONFIG, "consumer");
                config.remove(ConsumerConfig.MAX_POLL_INTERVAL_MS_CONFIG);
                try (KafkaConsumer<String, String> c =
                    new KafkaConsumer<>(
                        config, new StringDeserializer(), new StringDeserializer())) {
                  c.subscribe(List.of(topic));
                  while (!stop.get()) {
                    c.poll(Duration.ofMillis(100));
                  }
                }
              });
      try (LagMonitor monitor =
          monitor(kafka, Map.of(MonitorConfig.GROUPS, modern + "," + classic))) {
        GroupLag m =
            await()
                .atMost(TIMEOUT)
                .until(
                    () -> {
                      if (member.isDone()) {
                        member.get(); // the member's failure, not a timeout, if it failed
                      }
                      return monitor.tick().group(modern).orElseThrow();
                    },
                    g -> g.members() == 1 && g.partitions().size() == 2);
        assertThat(m.verdict().status()).isNotEqualTo(Status.UNKNOWN);
        assertThat(m.partitions()).allMatch(PartitionLag::owned);
        GroupLag c = monitor.latest().group(classic).orElseThrow();
        assertThat(c.sumLag()).isEqualTo(3);
        assertThat(c.members()).isZero();
      }
    } finally {
      stop.set(true);
      thread.shutdown();
      thread.awaitTermination(30, TimeUnit.SECONDS);
    }
  }

  @Test
  void groupsPickedByPatternAppearAndGoWithoutARestart(KafkaBroker kafka) throws Exception {
    String topic = UniqueNames.topic("pattern");
    String prefix = UniqueNames.group("orders");
    kafka.createTopic(topic, 1);
    LagMonitorIT.produce(kafka, topic, 1, 3, Instant.now());
    LagMonitorIT.commit(kafka.admin(), prefix + "-a", Map.of(new TopicPartition(topic, 0), 1L));
    LagMonitorIT.commit(kafka.admin(), "other-" + prefix, Map.of(new TopicPartition(topic, 0), 1L));
    try (LagMonitor monitor =
        monitor(
            kafka,
            Map.of(
                MonitorConfig.GROUPS_PATTERN,
                prefix + "-.*",
                MonitorConfig.GROUPS_EXCLUDE_PATTERN,
                ".*-excluded"))) {
      assertThat(monitor.tick().groups().keySet()).containsExactly(prefix + "-a");
      LagMonitorIT.commit(kafka.admin(), prefix + "-b", Map.of(new TopicPartition(topic, 0), 2L));
      LagMonitorIT.commit(
          kafka.admin(), prefix + "-b-excluded", Map.of(new TopicPartition(topic, 0), 2L));
      assertThat(monitor.tick().groups().keySet())
          .containsExactlyInAnyOrder(prefix + "-a", prefix + "-b");
      kafka.admin().deleteConsumerGroups(List.of(prefix + "-a")).all().get(30, TimeUnit.SECONDS);
      assertThat(monitor.tick().groups().keySet()).containsExactly(prefix + "-b");
    }
  }

  private static LagMonitor monitor(KafkaBroker kafka, Map<String, String> extra) {
    Map<String, Object> settings = new HashMap<>(extra);
    settings.put(MonitorConfig.BOOTSTRAP_SERVERS, kafka.bootstrapServers());
    settings.put(MonitorConfig.TICK_INTERVAL_MS, "200");
    settings.put(MonitorConfig.WINDOW_MS, "2000");
    return LagMonitor.create(settings, new SimpleMeterRegistry(), Clock.systemUTC());
  }
}
