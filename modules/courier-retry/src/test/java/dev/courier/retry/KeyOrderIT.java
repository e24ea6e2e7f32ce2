package dev.courier.retry;

import static org.assertj.core.api.Assertions.assertThat;

import dev.courier.core.CourierHeaders;
import dev.courier.core.PermanentError;
import dev.courier.retry.internal.ChainRecords;
import dev.courier.testkit.CourierInfraTest;
import dev.courier.testkit.KafkaBroker;
import dev.courier.testkit.TestDatabase;
import dev.courier.testkit.UniqueNames;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.InvalidProducerEpochException;
import org.apache.kafka.common.errors.ProducerFencedException;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;

/**
 * Key order through the ladder ({@code retry.ordering=key}) on a real broker: a key's later records
 * wait behind its record in the ladder while other keys flow; behind a dead letter they follow it
 * ({@code park}, replayed in order) or go on ({@code release}); a consumer that starts after
 * another reads the blocked keys back; and {@code none} is unchanged.
 */
@CourierInfraTest
class KeyOrderIT {

  private static final Duration TIMEOUT = Duration.ofSeconds(90);

  /** A refusal no retry fixes. */
  static final class Refused extends RuntimeException implements PermanentError {
    Refused(String message) {
      super(message);
    }

    @Override
    public String reason() {
      return "refused";
    }
  }

  /**
   * A handler scripted per record (its value): each call takes the next letter of its script, T a
   * transient failure, P a permanent one, S a success (and S once the script runs out). Every call
   * is logged in the order it happened.
   */
  static final class Scripted implements RecordHandler<String, String> {
    final Map<String, String> scripts = new ConcurrentHashMap<>();
    final Map<String, AtomicInteger> calls = new ConcurrentHashMap<>();
    final List<String> log = java.util.Collections.synchronizedList(new ArrayList<>());

    Scripted script(String record, String script) {
      scripts.put(record, script);
      return this;
    }

    @Override
    public void handle(org.apache.kafka.clients.consumer.ConsumerRecord<String, String> record) {
      String name = record.value();
      int call = calls.computeIfAbsent(name, k -> new AtomicInteger()).incrementAndGet();
      String script = scripts.getOrDefault(name, "");
      char outcome = call <= script.length() ? script.charAt(call - 1) : 'S';
      log.add(name + ":" + outcome);
      if (outcome == 'T') {
        throw new IllegalStateException("downstream busy (" + name + " call " + call + ")");
      }
      if (outcome == 'P') {
        throw new Refused("downstream refuses " + name);
      }
    }

    int firstCall(String name) {
      synchronized (log) {
        for (int i = 0; i < log.size(); i++) {
          if (log.get(i).startsWith(name + ":")) {
            return i;
          }
        }
      }
      return -1;
    }

    /** Where the record's first success is, or its last call when it never succeeded. */
    int resolved(String name) {
      synchronized (log) {
        int last = -1;
        for (int i = 0; i < log.size(); i++) {
          if (log.get(i).equals(name + ":S")) {
            return i;
          }
          if (log.get(i).startsWith(name + ":")) {
            last = i;
          }
        }
        return last;
      }
    }

    /** Each record of the list is first called only after the one before it was resolved. */
    void assertHandledInOrder(String... names) {
      for (int i = 1; i < names.length; i++) {
        assertThat(firstCall(names[i]))
            .as("%s first called after %s was resolved; calls: %s", names[i], names[i - 1], log)
            .isGreaterThan(resolved(names[i - 1]));
      }
    }
  }

  static Map<String, Object> settings(
      KafkaBroker kafka, String topic, String group, String ordering, long backOffMs) {
    Map<String, Object> s = new HashMap<>();
    s.put("bootstrap.servers", kafka.bootstrapServers());
    s.put(RetryConfig.GROUP_ID, group);
    s.put(RetryConfig.TOPIC, topic);
    s.put(RetryConfig.MAX_ATTEMPTS, 4);
    s.put(RetryConfig.BACKOFF_TYPE, "fixed");
    s.put(RetryConfig.BACKOFF_INITIAL_MS, backOffMs);
    s.put(RetryConfig.BACKOFF_MAX_MS, backOffMs);
    s.put(RetryConfig.ORDERING, ordering);
    return s;
  }

  static RetryingConsumer<String, String> consumer(
      Map<String, Object> settings, Scripted handler, SimpleMeterRegistry registry) {
    return RetryingConsumer.builder(settings, new StringDeserializer(), new StringDeserializer())
        .handler(handler)
        .meterRegistry(registry)
        .build();
  }

  /** Sends key/value pairs in order (one partition), each value its operation key. */
  static void send(KafkaBroker kafka, String topic, String... keyValues) throws Exception {
    try (KafkaProducer<String, String> producer =
        new KafkaProducer<>(
            kafka.producerConfig(), new StringSerializer(), new StringSerializer())) {
      for (int i = 0; i < keyValues.length; i += 2) {
        ProducerRecord<String, String> r =
            new ProducerRecord<>(topic, 0, keyValues[i], keyValues[i + 1]);
        r.headers().add(CourierHeaders.ID, keyValues[i + 1].getBytes());
        producer.send(r).get(30, TimeUnit.SECONDS);
      }
    }
  }

  @Test
  void laterRecordsOfAKeyWaitBehindItsRetryOtherKeysFlowAndAParkedChainReplaysInOrder(
      KafkaBroker kafka, TestDatabase db) throws Exception {
    String topic = UniqueNames.topic("ordered");
    String group = UniqueNames.group("ordered");
    kafka.createTopic(topic, 1);
    Scripted handler = new Scripted().script("a1", "TTS").script("a3", "TS").script("c1", "TP");
    send(
        kafka, topic, "A", "a1", "B", "b1", "C", "c1", "A", "a2", "B", "b2", "C", "c2", "A", "a3",
        "B", "b3", "C", "c3", "A", "a4", "B", "b4", "B", "b5");
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    Running.until(
        consumer(settings(kafka, topic, group, "key", 300), handler, registry),
        p -> p.succeeded() >= 9 && p.deadLettered() >= 3,
        TIMEOUT);

    handler.assertHandledInOrder("a1", "a2", "a3", "a4");
    assertThat(handler.firstCall("b5"))
        .as("key B flows while A waits: %s", handler.log)
        .isLessThan(handler.resolved("a1"));
    assertThat(handler.calls).as("c2, c3 never ran").doesNotContainKeys("c2", "c3");
    assertThat(handler.calls.get("a2").get()).isEqualTo(1);
    assertThat(registry.get("courier.retry.ordering.state.writes").counter().count()).isPositive();

    try (DltReplayer replayer =
        DltReplayer.create(
            Map.of("bootstrap.servers", kafka.bootstrapServers()), db.dataSource())) {
      List<DltRecord> dead =
          replayer.list(new RetryTopics(topic, group, 1).deadLetter(), DltFilter.all());
      assertThat(dead)
          .extracting(DltRecord::operationKey)
          .containsExactly(Optional.of("c1"), Optional.of("c2"), Optional.of("c3"));
      assertThat(dead)
          .extracting(DltRecord::reason)
          .containsExactly("permanent", "waiting-behind", "waiting-behind");
      String head = topic + "-0@" + dead.get(0).originalOffset();
      assertThat(dead.subList(1, 3)).allSatisfy(d -> assertThat(d.blockedBy()).contains(head));

      handler.script("c1", "TPS"); // the downstream fixed: c1's next call succeeds
      replayer.replay(
          replayer.plan(
              new RetryTopics(topic, group, 1).deadLetter(),
              DltFilter.all(),
              ReplayTarget.failingGroup()),
          "ops@example.com",
          "downstream fixed");
    }
    Running.until(
        consumer(settings(kafka, topic, group, "key", 300), handler, new SimpleMeterRegistry()),
        p -> p.succeeded() >= 3,
        TIMEOUT);
    handler.assertHandledInOrder("c1", "c2", "c3");
  }

  @Test
  void withReleaseTheRecordsBehindADeadLetterAreHandledInOrder(KafkaBroker kafka) throws Exception {
    String topic = UniqueNames.topic("release");
    kafka.createTopic(topic, 1);
    Scripted handler = new Scripted().script("d1", "TP").script("d3", "TS");
    send(kafka, topic, "D", "d1", "D", "d2", "D", "d3", "D", "d4", "E", "e1");
    Map<String, Object> s = settings(kafka, topic, UniqueNames.group("release"), "key", 200);
    s.put(RetryConfig.ORDERING_ON_DEAD_LETTER, "release");
    Running.until(
        consumer(s, handler, new SimpleMeterRegistry()),
        p -> p.succeeded() >= 4 && p.deadLettered() >= 1,
        TIMEOUT);
    handler.assertHandledInOrder("d1", "d2", "d3", "d4");
    assertThat(handler.calls.get("d4").get()).isEqualTo(1);
  }

  @Test
  void aConsumerThatTakesOverReadsTheBlockedKeysBackAndReleasesThemInOrder(KafkaBroker kafka)
      throws Exception {
    String topic = UniqueNames.topic("takeover");
    String group = UniqueNames.group("takeover");
    kafka.createTopic(topic, 1);
    Scripted handler = new Scripted().script("f1", "TS");
    send(kafka, topic, "F", "f1", "F", "f2", "G", "g1", "F", "f3", "G", "g2");
    // A long delay: the first consumer leaves while f1 waits at its tier, f2 and f3 behind it.
    Map<String, Object> s = settings(kafka, topic, group, "key", 4_000);
    Running.until(
        consumer(s, handler, new SimpleMeterRegistry()),
        p -> p.succeeded() >= 2 && p.retried() >= 1,
        TIMEOUT);
    assertThat(handler.calls).doesNotContainKeys("f2", "f3");

    SimpleMeterRegistry next = new SimpleMeterRegistry();
    Running.until(consumer(s, handler, next), p -> p.succeeded() >= 3, TIMEOUT);
    handler.assertHandledInOrder("f1", "f2", "f3");
    assertThat(handler.calls.get("f2").get()).isEqualTo(1);
    assertThat(handler.calls.get("f3").get()).isEqualTo(1);
    assertThat(handler.calls.get("g2").get()).as("not repeated by the second").isEqualTo(1);
  }

  /**
   * A former owner frozen or cut off past its session writes, when it wakes, the state its key had
   * then: here k1 blocked in its tier, although the key was resolved and the partition committed
   * past it since. The next owner does not read it back (it follows a later generation's mark), so
   * k2 is handled, not held behind a head nothing will bring back.
   */
  @Test
  void aFormerOwnersLateWriteOfAKeysStateDoesNotHoldTheKey(KafkaBroker kafka) throws Exception {
    String topic = UniqueNames.topic("late");
    String group = UniqueNames.group("late");
    kafka.createTopic(topic, 1);
    Scripted handler = new Scripted();
    send(kafka, topic, "K", "k1");
    Map<String, Object> s = settings(kafka, topic, group, "key", 200);
    Running.until(
        consumer(s, handler, new SimpleMeterRegistry()), p -> p.succeeded() >= 1, TIMEOUT);
    String blocked = new RetryTopics(topic, group, 1).blocked();
    int generation = highestGeneration(kafka, blocked);
    assertThat(generation).as("the owner marked the partition with its generation").isPositive();

    java.nio.ByteBuffer k1Blocked = java.nio.ByteBuffer.allocate(29);
    k1Blocked.put((byte) 1).putLong(0).putLong(0).putLong(System.currentTimeMillis()).putInt(0);
    ProducerRecord<byte[], byte[]> late =
        new ProducerRecord<>(blocked, 0, ChainRecords.key(0, "K".getBytes()), k1Blocked.array());
    ChainRecords.stamp(late.headers(), generation - 1);
    try (KafkaProducer<byte[], byte[]> producer =
        new KafkaProducer<>(
            kafka.producerConfig(), new ByteArraySerializer(), new ByteArraySerializer())) {
      producer.send(late).get(30, TimeUnit.SECONDS);
    }
    send(kafka, topic, "K", "k2");
    Running.until(
        consumer(s, handler, new SimpleMeterRegistry()), p -> p.succeeded() >= 1, TIMEOUT);

    assertThat(handler.calls.get("k1").get()).isEqualTo(1);
    assertThat(handler.calls.get("k2").get()).isEqualTo(1);
  }

  /**
   * A former owner cut off with a dead letter in an open transaction: the next owner opens the
   * partition's letters' transactional id when it is given the partition, which aborts that
   * transaction, and parks the record once; the former owner's commit, when it wakes, is refused.
   */
  @Test
  void aFormerOwnersDeadLetterStillOnItsWayIsFencedAndTheRecordParkedOnce(KafkaBroker kafka)
      throws Exception {
    String topic = UniqueNames.topic("zombie");
    String group = UniqueNames.group("zombie");
    kafka.createTopic(topic, 1);
    String dlt = new RetryTopics(topic, group, 1).deadLetter();
    kafka.createTopic(dlt, 1);
    send(kafka, topic, "P", "p1", "Q", "q1");
    Map<String, Object> zombieSettings = new HashMap<>(kafka.producerConfig());
    zombieSettings.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, group + "." + topic + ".dlt.0");
    try (KafkaProducer<String, String> zombie =
        new KafkaProducer<>(zombieSettings, new StringSerializer(), new StringSerializer())) {
      zombie.initTransactions();
      zombie.beginTransaction();
      ProducerRecord<String, String> letter = new ProducerRecord<>(dlt, 0, "P", "p1");
      letter.headers().add(CourierHeaders.ID, "p1".getBytes());
      letter.headers().add(CourierHeaders.REASON, "permanent".getBytes());
      letter.headers().add(CourierHeaders.ORIGINAL_TOPIC, topic.getBytes());
      letter.headers().add(CourierHeaders.ORIGINAL_PARTITION, "0".getBytes());
      letter.headers().add(CourierHeaders.ORIGINAL_OFFSET, "0".getBytes());
      zombie.send(letter).get(30, TimeUnit.SECONDS); // in the log, its transaction open

      Scripted handler = new Scripted().script("p1", "P");
      Running.until(
          consumer(settings(kafka, topic, group, "key", 200), handler, new SimpleMeterRegistry()),
          p -> p.succeeded() >= 1 && p.deadLettered() >= 1,
          TIMEOUT);

      assertThat(handler.calls.get("p1").get()).isEqualTo(1);
      org.assertj.core.api.Assertions.assertThatThrownBy(zombie::commitTransaction)
          .as("the former owner's letter is refused when it wakes")
          .isInstanceOfAny(ProducerFencedException.class, InvalidProducerEpochException.class);
    }
    assertThat(committedLetters(kafka, dlt)).as("parked once").containsExactly("p1");
  }

  /** The values of the DLT's letters a read-committed reader sees. */
  private static List<String> committedLetters(KafkaBroker kafka, String dlt) {
    return kafka.readPartition(new TopicPartition(dlt, 0), "read_committed").stream()
        .map(r -> new String(r.value(), java.nio.charset.StandardCharsets.UTF_8))
        .toList();
  }

  private static int highestGeneration(KafkaBroker kafka, String topic) {
    return kafka.readPartition(new TopicPartition(topic, 0), "read_uncommitted").stream()
        .mapToInt(ChainRecords::generationOf)
        .max()
        .orElse(-1);
  }

  /**
   * A former owner killed after a head's dead letter was taken and before its key's state and the
   * group's first commit were written leaves only the letter. With no commit to date the search
   * from, the next owner reads the whole DLT partition: the letter, two days old here, is found,
   * and the head is neither called nor parked again while the key's next record is handled.
   */
  @Test
  void aRecordParkedBeforeTheGroupsFirstCommitIsNeitherHandledNorParkedAgain(KafkaBroker kafka)
      throws Exception {
    String topic = UniqueNames.topic("first");
    String group = UniqueNames.group("first");
    kafka.createTopic(topic, 1);
    String dlt = new RetryTopics(topic, group, 1).deadLetter();
    kafka.createTopic(dlt, 1);
    send(kafka, topic, "P", "p1", "P", "p2", "Q", "q1");
    try (KafkaProducer<String, String> producer =
        new KafkaProducer<>(
            kafka.producerConfig(), new StringSerializer(), new StringSerializer())) {
      long twoDaysAgo = System.currentTimeMillis() - Duration.ofDays(2).toMillis();
      ProducerRecord<String, String> letter = new ProducerRecord<>(dlt, 0, twoDaysAgo, "P", "p1");
      letter.headers().add(CourierHeaders.ID, "p1".getBytes());
      letter.headers().add(CourierHeaders.REASON, "permanent".getBytes());
      letter.headers().add(CourierHeaders.ORIGINAL_TOPIC, topic.getBytes());
      letter.headers().add(CourierHeaders.ORIGINAL_PARTITION, "0".getBytes());
      letter.headers().add(CourierHeaders.ORIGINAL_OFFSET, "0".getBytes());
      producer.send(letter).get(30, TimeUnit.SECONDS);
    }
    Scripted handler = new Scripted().script("p1", "P");
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    Running.until(
        consumer(settings(kafka, topic, group, "key", 200), handler, registry),
        p -> p.succeeded() >= 2,
        TIMEOUT);

    assertThat(handler.calls).as("calls: %s", handler.log).doesNotContainKey("p1");
    assertThat(handler.calls.get("p2").get()).isEqualTo(1);
    assertThat(registry.get("courier.retry.ordering.seen").counter().count()).isEqualTo(1);
    org.apache.kafka.common.TopicPartition dlt0 =
        new org.apache.kafka.common.TopicPartition(dlt, 0);
    assertThat(
            kafka
                .admin()
                .listOffsets(Map.of(dlt0, org.apache.kafka.clients.admin.OffsetSpec.latest()))
                .partitionResult(dlt0)
                .get(30, TimeUnit.SECONDS)
                .offset())
        .as("no second letter")
        .isEqualTo(1);
  }

  @Test
  void withoutKeyOrderALaterRecordDoesNotWait(KafkaBroker kafka) throws Exception {
    String topic = UniqueNames.topic("unordered");
    String group = UniqueNames.group("unordered");
    kafka.createTopic(topic, 1);
    Scripted handler = new Scripted().script("h1", "TS");
    send(kafka, topic, "H", "h1", "H", "h2");
    Running.until(
        consumer(settings(kafka, topic, group, "none", 500), handler, new SimpleMeterRegistry()),
        p -> p.succeeded() >= 2,
        TIMEOUT);
    assertThat(handler.firstCall("h2")).isLessThan(handler.resolved("h1"));
    assertThat(kafka.admin().listTopics().names().get(30, TimeUnit.SECONDS))
        .doesNotContain(new RetryTopics(topic, group, 1).blocked());
  }
}
