package dev.courier.retry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.courier.core.CourierHeaders;
import dev.courier.testkit.CourierInfraTest;
import dev.courier.testkit.KafkaBroker;
import dev.courier.testkit.TestDatabase;
import dev.courier.testkit.UniqueNames;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;

/**
 * The upgrade from one ladder a topic shared by all its groups ({@code <topic>.retry.N}, {@code
 * <topic>.dlt}, {@code <topic>.retry.blocked}) to a ladder per group. The shared state is made the
 * way the shared ladder made it: two groups run on the topic with the ladder code, one of them with
 * key order, and what their ladders hold is then moved to the shared names, their own topics
 * deleted. After the upgrade each group handles only its own records from the shared tier, goes on
 * through its own ladder, releases a key blocked in the shared state in order, and a letter of the
 * shared DLT is replayed to the group that failed it.
 */
@CourierInfraTest
class LadderUpgradeIT {

  private static final Duration TIMEOUT = Duration.ofSeconds(90);

  @Test
  void eachGroupTakesOnlyItsOwnRecordsFromTheSharedLadderAndGoesOnThroughItsOwn(
      KafkaBroker kafka, TestDatabase db) throws Exception {
    String topic = UniqueNames.topic("upgrade");
    kafka.createTopic(topic, 1);
    String a = UniqueNames.group("upgrade-a");
    String b = UniqueNames.group("upgrade-b");
    RetryTopics ladderA = new RetryTopics(topic, a, 2);
    RetryTopics ladderB = new RetryTopics(topic, b, 2);
    // A (key order): a1 fails twice, a2 and a3 of its key wait. B: x1 fails once, p1 for good.
    KeyOrderIT.Scripted handlerA = new KeyOrderIT.Scripted().script("a1", "TT");
    KeyOrderIT.Scripted handlerB = new KeyOrderIT.Scripted().script("x1", "T").script("p1", "P");
    KeyOrderIT.send(kafka, topic, "K", "a1", "K", "a2", "Z", "x1", "K", "a3", "Y", "p1");

    // Before the upgrade: each group's first failure waits a minute at tier 1.
    Running.until(
        consumer(settings(kafka, topic, a, "key", 60_000), handlerA),
        p -> p.retried() >= 1 && p.succeeded() >= 2,
        TIMEOUT);
    Running.until(
        consumer(settings(kafka, topic, b, "none", 60_000), handlerB),
        p -> p.retried() >= 1 && p.succeeded() >= 3 && p.deadLettered() >= 1,
        TIMEOUT);
    assertThat(handlerA.calls).doesNotContainKeys("a2", "a3");
    // What the shared ladder held: both groups' retries in one tier, their letters in one DLT.
    RetryTopics shared = new RetryTopics(topic, a, 2);
    kafka.createTopic(shared.sharedTier(1), 1);
    kafka.createTopic(shared.sharedTier(2), 1);
    kafka.createTopic(shared.sharedDeadLetter(), 1);
    kafka.createTopic(shared.sharedBlocked(), 1);
    move(kafka, ladderA.tier(1), shared.sharedTier(1));
    move(kafka, ladderB.tier(1), shared.sharedTier(1));
    move(kafka, ladderA.blocked(), shared.sharedBlocked());
    move(kafka, ladderB.deadLetter(), shared.sharedDeadLetter());
    List<String> own = new ArrayList<>(ladderA.all().subList(1, 4));
    own.add(ladderA.blocked());
    own.addAll(ladderB.all().subList(1, 4));
    kafka.admin().deleteTopics(own).all().get(30, TimeUnit.SECONDS);
    await()
        .atMost(TIMEOUT)
        .until(() -> kafka.admin().listTopics().names().get().stream().noneMatch(own::contains));

    // Upgraded: B first, then A, each with short delays.
    Running.until(
        consumer(settings(kafka, topic, b, "none", 200), handlerB),
        p -> p.succeeded() >= 1,
        TIMEOUT);
    try (DltReplayer replayer =
        DltReplayer.create(
            Map.of("bootstrap.servers", kafka.bootstrapServers()), db.dataSource())) {
      DltReplayer.ReplayPlan plan =
          replayer.plan(shared.sharedDeadLetter(), DltFilter.all(), ReplayTarget.failingGroup());
      assertThat(plan.records()).extracting(DltRecord::group).containsExactly(Optional.of(b));
      assertThat(replayer.replay(plan, "ops@example.com", "upgrade").sent()).isEqualTo(1);
    }
    Running.until(
        consumer(settings(kafka, topic, b, "none", 200), handlerB),
        p -> p.succeeded() >= 1,
        TIMEOUT);
    Running.until(
        consumer(settings(kafka, topic, a, "key", 200), handlerA),
        p -> p.succeeded() >= 3,
        TIMEOUT);

    assertThat(handlerB.calls.get("x1")).as("B's retry from the shared tier").hasValue(2);
    assertThat(handlerB.calls.get("p1")).as("B's letter of the shared DLT, replayed").hasValue(2);
    assertThat(handlerB.calls.get("a1")).as("A's retry is not B's").hasValue(1);
    assertThat(handlerA.calls.get("x1")).as("B's retry is not A's").hasValue(1);
    assertThat(handlerA.calls.get("p1")).as("B's replay is not A's").hasValue(1);
    assertThat(handlerA.calls.get("a1")).hasValue(3);
    handlerA.assertHandledInOrder("a1", "a2", "a3");
    assertThat(kafka.readStrings(ladderA.tier(2), 1, TIMEOUT))
        .as("A's next hop is on its own ladder")
        .extracting(ConsumerRecord::value)
        .containsExactly("a1");
    assertThat(endOffset(kafka, shared.sharedTier(2))).as("nothing goes to a shared tier").isZero();
    long sharedEnd = endOffset(kafka, shared.sharedTier(1));
    assertThat(sharedEnd).isEqualTo(2);
    assertThat(kafka.committed(a, shared.sharedTier(1), 0)).isEqualTo(sharedEnd);
    assertThat(kafka.committed(b, shared.sharedTier(1), 0)).isEqualTo(sharedEnd);
  }

  /** Key order's test settings with three attempts: two tiers. */
  private static Map<String, Object> settings(
      KafkaBroker kafka, String topic, String group, String ordering, long backOffMs) {
    Map<String, Object> s = KeyOrderIT.settings(kafka, topic, group, ordering, backOffMs);
    s.put(RetryConfig.MAX_ATTEMPTS, 3);
    return s;
  }

  private static RetryingConsumer<String, String> consumer(
      Map<String, Object> settings, KeyOrderIT.Scripted handler) {
    return KeyOrderIT.consumer(settings, handler, new SimpleMeterRegistry());
  }

  /**
   * Copies partition 0 of one topic to another, records as they are (a tier record due now, so the
   * upgraded ladder need not wait out the minute).
   */
  private static void move(KafkaBroker kafka, String from, String to) throws Exception {
    TopicPartition tp = new TopicPartition(from, 0);
    try (KafkaConsumer<byte[], byte[]> reader =
            new KafkaConsumer<>(
                kafka.consumerConfig(UniqueNames.group("mover")),
                new ByteArrayDeserializer(),
                new ByteArrayDeserializer());
        KafkaProducer<byte[], byte[]> writer =
            new KafkaProducer<>(
                kafka.producerConfig(), new ByteArraySerializer(), new ByteArraySerializer())) {
      reader.assign(List.of(tp));
      reader.seekToBeginning(List.of(tp));
      long end = reader.endOffsets(List.of(tp)).get(tp);
      assertThat(end).as("%s holds what the ladder left", from).isPositive();
      while (reader.position(tp) < end) {
        for (ConsumerRecord<byte[], byte[]> r : reader.poll(Duration.ofMillis(500))) {
          ProducerRecord<byte[], byte[]> copy =
              new ProducerRecord<>(to, 0, r.timestamp(), r.key(), r.value());
          for (Header h : r.headers()) {
            if (!h.key().equals(CourierHeaders.DUE)) {
              copy.headers().add(h);
            }
          }
          if (r.headers().lastHeader(CourierHeaders.DUE) != null) {
            copy.headers()
                .add(
                    CourierHeaders.DUE,
                    String.valueOf(Instant.now().toEpochMilli()).getBytes(StandardCharsets.UTF_8));
          }
          writer.send(copy).get(30, TimeUnit.SECONDS);
        }
      }
    }
  }

  private static long endOffset(KafkaBroker kafka, String topic) {
    TopicPartition tp = new TopicPartition(topic, 0);
    try (KafkaConsumer<byte[], byte[]> reader =
        new KafkaConsumer<>(
            kafka.consumerConfig(UniqueNames.group("ends")),
            new ByteArrayDeserializer(),
            new ByteArrayDeserializer())) {
      return reader.endOffsets(List.of(tp)).get(tp);
    }
  }
}
