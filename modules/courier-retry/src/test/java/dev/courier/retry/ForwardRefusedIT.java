package dev.courier.retry;

import static org.assertj.core.api.Assertions.assertThat;

import dev.courier.core.CourierHeaders;
import dev.courier.testkit.CourierInfraTest;
import dev.courier.testkit.KafkaBroker;
import dev.courier.testkit.KafkaProcess;
import dev.courier.testkit.TestDatabase;
import dev.courier.testkit.UniqueNames;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.resource.ResourceType;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.Test;

/**
 * Forwards Kafka refuses for good: a record that is too large once the ladder's headers are added,
 * and a tier the worker's principal may not write ({@link BrokerFaultsIT} has the broker gone
 * longer than {@code delivery.timeout.ms}). No offset ever passes the record: it is parked in the
 * DLT as {@code forward-refused} (without its value when that is what is too large, which a replay
 * then reads from the original), or it comes again; the records around it are handled.
 */
@CourierInfraTest
class ForwardRefusedIT {

  private static final Duration TIMEOUT = Duration.ofSeconds(90);

  /** Accepted on the main topic; over max.request.size with the ladder's ~16 headers. */
  private static final int LARGE = 1_048_000;

  private final Map<String, AtomicInteger> calls = new ConcurrentHashMap<>();

  @Test
  void aRecordTooLargeForItsTierIsParkedWithoutItsValue(KafkaBroker kafka, TestDatabase db)
      throws Exception {
    String topic = UniqueNames.topic("large");
    kafka.createTopic(topic, 1);
    Map<String, Object> producer = kafka.producerConfig();
    send(producer, topic, "op-1", 10);
    send(producer, topic, "op-2", LARGE);
    send(producer, topic, "op-3", 10);
    String group = UniqueNames.group("large");
    RetryingConsumer<String, String> consumer =
        consumer(LadderTestSettings.of(kafka.clientSettings(), topic, group));
    RetryProgress p =
        Running.until(consumer, x -> x.succeeded() >= 2 && x.deadLettered() >= 1, TIMEOUT);
    assertThat(p.succeeded()).isEqualTo(2);
    assertThat(calls.get("op-2")).hasValue(1);
    assertThat(kafka.committed(group, topic, 0)).as("past all three, each done").isEqualTo(3);
    DltRecord dead = dlt(kafka.clientSettings(), db, topic, group).get(0);
    assertThat(dead.reason()).isEqualTo("forward-refused");
    assertThat(dead.operationKey()).contains("op-2");
    assertThat(dead.value()).as("the value stays at the original coordinates").isNull();
    assertThat(header(dead, CourierHeaders.PAYLOAD_OMITTED)).isEqualTo(String.valueOf(LARGE));
    assertThat(dead.message())
        .contains("the forward to " + new RetryTopics(topic, group, 1).tier(1) + " was refused")
        .contains("RecordTooLargeException");
    assertThat(dead.originalOffset()).isEqualTo(1);

    // A replay reads the omitted value from the original coordinates. To the original topic: with
    // the ladder's headers it would be too large for the group's tier again.
    try (DltReplayer replayer = DltReplayer.create(kafka.clientSettings(), db.dataSource())) {
      DltReplayer.ReplayPlan plan =
          replayer.plan(
              new RetryTopics(topic, group, 1).deadLetter(),
              DltFilter.all(),
              ReplayTarget.originalTopics());
      assertThat(plan.render()).contains("value omitted: read from the original at replay");
      assertThat(replayer.replay(plan, "ops@example.com", "limit raised").sent()).isEqualTo(1);
      DltRecord replayed = replayer.inspect(topic, 0, 3).orElseThrow();
      assertThat(replayed.value()).hasSize(LARGE);
      assertThat(header(replayed, CourierHeaders.REPLAY_OF)).isEqualTo(dead.coordinates());
    }
  }

  @Test
  void aTierThePrincipalMayNotWriteParksTheRecordWithItsValue(TestDatabase db) throws Exception {
    try (KafkaProcess kafka = KafkaProcess.scram().start()) {
      String topic = UniqueNames.topic("acl");
      String group = UniqueNames.group("acl");
      kafka.createTopic(topic, 1);
      RetryTopics ladder = new RetryTopics(topic, group, 1);
      kafka.createTopic(ladder.tier(1), 1);
      kafka.createTopic(ladder.deadLetter(), 1);
      allowAllButTierWrites(kafka, topic, group);
      Map<String, Object> superUser = LadderTestSettings.prefixed(admin(kafka));
      Map<String, Object> producer = new HashMap<String, Object>(admin(kafka));
      send(producer, topic, "op-1", 10);
      send(producer, topic, "op-2", 10);
      RetryingConsumer<String, String> consumer =
          consumer(
              LadderTestSettings.of(
                  LadderTestSettings.prefixed(kafka.clientSettings("worker", "worker-secret")),
                  topic,
                  group));
      RetryProgress p = Running.until(consumer, x -> x.deadLettered() >= 2, TIMEOUT);
      assertThat(p.deadLettered()).isEqualTo(2);
      List<DltRecord> dead = dlt(superUser, db, topic, group);
      assertThat(dead).extracting(DltRecord::reason).containsOnly("forward-refused");
      assertThat(dead)
          .extracting(d -> d.operationKey().orElseThrow())
          .containsExactly("op-1", "op-2");
      assertThat(new String(dead.get(0).value(), StandardCharsets.UTF_8)).isEqualTo("x".repeat(10));
      assertThat(dead.get(0).message()).contains("TopicAuthorizationException");
    }
  }

  /**
   * With key order, a head whose forward to tier 1 is refused while the worker closes: the close's
   * commit waits for the head's key to be resolved (its waiting records parked, or the key freed),
   * so the next consumer of the group finds no key blocked by a head that no tier brings back.
   */
  @Test
  void aRefusedHeadFoundByACloseIsResolvedBeforeItsCommit(TestDatabase db) throws Exception {
    try (KafkaProcess kafka = KafkaProcess.scram().start()) {
      String topic = UniqueNames.topic("acl-order");
      String group = UniqueNames.group("acl-order");
      kafka.createTopic(topic, 1);
      allowAllButTierWrites(kafka, topic, group);
      Map<String, Object> superUser = LadderTestSettings.prefixed(admin(kafka));
      Map<String, Object> settings = oneKeyOfThree(kafka, topic, group);

      // Closed once op-1 failed: its forward to tier 1 is answered (refused) during the close.
      Running.until(consumer(settings), x -> calls.containsKey("op-1"), TIMEOUT);
      Running.until(consumer(settings), x -> accounted(superUser, db, topic, group), TIMEOUT);

      assertThat(calls.get("op-1")).as("refused, not called again").hasValue(1);
      assertThat(
              kafka
                  .admin()
                  .listConsumerGroupOffsets(group)
                  .partitionsToOffsetAndMetadata()
                  .get(30, TimeUnit.SECONDS)
                  .get(new TopicPartition(topic, 0))
                  .offset())
          .as("past all three, each done or parked")
          .isEqualTo(3);
      List<DltRecord> dead = dlt(superUser, db, topic, group);
      assertThat(dead.get(0).operationKey()).contains("op-1");
      assertThat(dead.get(0).reason()).isEqualTo("forward-refused");
    }
  }

  /**
   * With key order, a head refused at tier 1 while its principal may not write the DLT: its key
   * waits until Kafka takes the head's own letter, and only then do its followers follow it.
   * Before, they were parked as soon as the head's letter was sent, and this test found op-2 and
   * op-3 in the DLT ahead of op-1, naming a record that was in no DLT yet; when the head's copy
   * came back from its tier (held back 1, 2, 4, 8 s after each refusal) after its key was freed, it
   * was taken for a stale copy and committed past, in no DLT ever (FaultCampaign, seed 2 of
   * 2026-12-07).
   */
  @Test
  void aHeadWhoseDeadLetterIsRefusedHoldsItsKeyUntilKafkaTakesIt(TestDatabase db) throws Exception {
    try (KafkaProcess kafka = KafkaProcess.scram().start()) {
      DltDenied denied = DltDenied.on(kafka, "dlt-acl");
      String topic = denied.topic();
      Map<String, Object> settings = oneKeyOfThree(kafka, topic, denied.group());
      RetryingConsumer<String, String> consumer =
          consumer(
              settings,
              (op, call) -> {
                if (op.equals("op-1")) {
                  if (call == 1) {
                    throw new IOException("the endpoint timed out"); // to tier 1
                  }
                  throw new KeyOrderIT.Refused("op-1 is refused");
                }
              });

      AtomicBoolean dltWritable = new AtomicBoolean();
      Running.until(
          consumer,
          x -> {
            // Refused at tier 1 three times, each letter refused: the DLT may be written now.
            if (!dltWritable.get() && calls.getOrDefault("op-1", new AtomicInteger()).get() >= 4) {
              denied.allowDlt(kafka);
              dltWritable.set(true);
            }
            return dltWritable.get() && denied.letters(db).size() >= 3;
          },
          TIMEOUT);

      List<DltRecord> dead = denied.letters(db);
      assertThat(dead)
          .extracting(d -> d.operationKey().orElseThrow())
          .containsExactly("op-1", "op-2", "op-3");
      // Refused again once the DLT may be written; or, the DLT allowed between its letter's
      // refusal and the letter sent again without its value, parked as such.
      assertThat(dead.get(0).reason()).isIn("permanent", "forward-refused");
      assertThat(dead.subList(1, 3)).extracting(DltRecord::reason).containsOnly("waiting-behind");
      String head = dead.get(0).originalTopic() + "-0@" + dead.get(0).originalOffset();
      assertThat(dead.subList(1, 3)).allSatisfy(d -> assertThat(d.blockedBy()).contains(head));
      assertThat(calls).as("op-2 and op-3 waited, then followed op-1").containsOnlyKeys("op-1");
    }
  }

  /**
   * Dead letters refused one after another, found in separate turns of the loop: each refusal sends
   * its partition back to read the record again, and a later refusal (of a record sent before the
   * first one was found) must not send it forward past the first. Before, it did: the records
   * between were held uncommitted and never read again (FaultCampaign seed 14 of 2026-12-07, 22 to
   * 73 records of a run "lost" while the DLT's writes were denied).
   */
  @Test
  void refusedDeadLettersFoundOneByOneAreAllReadAgain(TestDatabase db) throws Exception {
    try (KafkaProcess kafka = KafkaProcess.scram().start()) {
      DltDenied denied = DltDenied.on(kafka, "dlt-refusals");
      String topic = denied.topic();
      Map<String, Object> producer = new HashMap<String, Object>(admin(kafka));
      int records = 30;
      for (int i = 0; i < records; i++) {
        send(producer, topic, "op-" + i, 10);
      }
      Map<String, Object> settings =
          LadderTestSettings.of(
              LadderTestSettings.prefixed(kafka.clientSettings("worker", "worker-secret")),
              topic,
              denied.group());
      settings.put("kafka.max.poll.records", 1); // one record a turn: refusals found turn by turn
      RetryingConsumer<String, String> consumer =
          consumer(
              settings,
              (op, call) -> {
                throw new KeyOrderIT.Refused(op + " is refused");
              });

      AtomicBoolean dltWritable = new AtomicBoolean();
      Running.until(
          consumer,
          x -> {
            // op-0's letter refused and op-1 called before that was found: the DLT may be written.
            int called = calls.values().stream().mapToInt(AtomicInteger::get).sum();
            if (!dltWritable.get() && calls.containsKey("op-1") && called >= 4) {
              denied.allowDlt(kafka);
              dltWritable.set(true);
            }
            return dltWritable.get() && denied.letters(db).size() >= records;
          },
          TIMEOUT);

      List<DltRecord> dead = denied.letters(db);
      // Every record parked; those parked after a refused one may be parked again when their
      // partition is read again from it (at least once: without key order nothing remembers them).
      assertThat(dead)
          .extracting(d -> d.operationKey().orElseThrow())
          .as("every record parked")
          .containsAll(IntStream.range(0, records).mapToObj(i -> "op-" + i).toList());
      assertThat(dead.get(dead.size() - 1).operationKey()).contains("op-" + (records - 1));
      assertThat(dead).extracting(DltRecord::reason).isSubsetOf("permanent", "forward-refused");
    }
  }

  /** op-2 and op-3 each handled, or parked behind op-1 (which is in the DLT). */
  private boolean accounted(
      Map<String, Object> clients, TestDatabase db, String topic, String group) {
    List<DltRecord> dead = dlt(clients, db, topic, group);
    return List.of("op-2", "op-3").stream()
        .allMatch(
            op ->
                calls.containsKey(op)
                    || dead.stream()
                        .anyMatch(
                            d ->
                                d.operationKey().orElse("").equals(op)
                                    && d.reason().equals("waiting-behind")));
  }

  /** A one-partition topic whose ladder's worker may write tier 1 and not the DLT. */
  private record DltDenied(
      String topic, String group, RetryTopics ladder, Map<String, Object> superUser) {
    static DltDenied on(KafkaProcess kafka, String name) {
      String topic = UniqueNames.topic(name);
      String group = UniqueNames.group(name);
      kafka.createTopic(topic, 1);
      RetryTopics ladder = new RetryTopics(topic, group, 1);
      allowWorker(kafka, topic, group, ladder.tier(1));
      return new DltDenied(topic, group, ladder, LadderTestSettings.prefixed(admin(kafka)));
    }

    void allowDlt(KafkaProcess kafka) {
      kafka.allow("worker", ResourceType.TOPIC, ladder.deadLetter(), AclOperation.WRITE);
    }

    /** The DLT as the super user reads it. */
    List<DltRecord> letters(TestDatabase db) {
      return dlt(superUser, db, topic, group);
    }
  }

  /** Client settings of the broker's super user, who may write every topic. */
  private static Map<String, String> admin(KafkaProcess kafka) {
    return kafka.clientSettings(KafkaProcess.SUPER_USER, KafkaProcess.SUPER_PASSWORD);
  }

  /**
   * User {@code worker} writes only the DLT and key order's state: a forward to tier 1 is refused.
   */
  private static void allowAllButTierWrites(KafkaProcess kafka, String topic, String group) {
    allowWorker(kafka, topic, group, new RetryTopics(topic, group, 1).deadLetter());
  }

  /**
   * User {@code worker} reads, describes and creates everything of the ladder, and writes key
   * order's state (its dead letters' transactional ids too) and {@code writable}, nothing else.
   */
  private static void allowWorker(KafkaProcess kafka, String topic, String group, String writable) {
    kafka.addUser("worker", "worker-secret");
    kafka.allow(
        "worker",
        ResourceType.TOPIC,
        topic,
        AclOperation.READ,
        AclOperation.DESCRIBE,
        AclOperation.CREATE);
    kafka.allow("worker", ResourceType.TOPIC, writable, AclOperation.WRITE);
    kafka.allow(
        "worker",
        ResourceType.TOPIC,
        new RetryTopics(topic, group, 1).blocked(),
        AclOperation.WRITE);
    kafka.allow("worker", ResourceType.GROUP, group, AclOperation.READ);
    // Key order's dead letters are written in transactions, one id per partition.
    kafka.allow(
        "worker",
        ResourceType.TRANSACTIONAL_ID,
        group + ".",
        AclOperation.WRITE,
        AclOperation.DESCRIBE);
  }

  /** op-1, op-2 and op-3 of key acc on the topic; the settings of {@code worker}'s ladder on it. */
  private static Map<String, Object> oneKeyOfThree(KafkaProcess kafka, String topic, String group)
      throws Exception {
    Map<String, Object> producer = new HashMap<String, Object>(admin(kafka));
    for (String op : List.of("op-1", "op-2", "op-3")) {
      send(producer, topic, "acc", op, 10);
    }
    Map<String, Object> settings =
        LadderTestSettings.of(
            LadderTestSettings.prefixed(kafka.clientSettings("worker", "worker-secret")),
            topic,
            group);
    settings.put(RetryConfig.ORDERING, "key");
    return settings;
  }

  private RetryingConsumer<String, String> consumer(Map<String, Object> settings) {
    return consumer(
        settings,
        (op, call) -> {
          if (call == 1) {
            throw new IOException("the endpoint timed out"); // transient: to tier 1
          }
        });
  }

  /** How the handler answers the {@code call}-th call of operation {@code op}. */
  @FunctionalInterface
  private interface Answer {
    void answer(String op, int call) throws Exception;
  }

  /** A ladder on {@code settings} whose handler counts each operation's calls and answers so. */
  private RetryingConsumer<String, String> consumer(Map<String, Object> settings, Answer answer) {
    return RetryingConsumer.builder(settings, new StringDeserializer(), new StringDeserializer())
        .handler(
            record -> {
              String op = CourierHeaders.text(record.headers(), CourierHeaders.ID).orElseThrow();
              answer.answer(
                  op, calls.computeIfAbsent(op, k -> new AtomicInteger()).incrementAndGet());
            })
        .meterRegistry(new SimpleMeterRegistry())
        .build();
  }

  private static void send(Map<String, Object> producerConfig, String topic, String op, int size)
      throws Exception {
    send(producerConfig, topic, op, op, size);
  }

  private static void send(
      Map<String, Object> producerConfig, String topic, String key, String op, int size)
      throws Exception {
    Map<String, Object> config = new HashMap<>(producerConfig);
    try (KafkaProducer<byte[], byte[]> producer =
        new KafkaProducer<>(config, new ByteArraySerializer(), new ByteArraySerializer())) {
      ProducerRecord<byte[], byte[]> r =
          new ProducerRecord<>(
              topic,
              0,
              key.getBytes(StandardCharsets.UTF_8),
              "x".repeat(size).getBytes(StandardCharsets.UTF_8));
      r.headers().add(CourierHeaders.ID, op.getBytes(StandardCharsets.UTF_8));
      producer.send(r).get(30, TimeUnit.SECONDS);
    }
  }

  private static String header(DltRecord record, String name) {
    return record.headers().stream()
        .filter(h -> h.key().equals(name))
        .map(h -> new String(h.value(), StandardCharsets.UTF_8))
        .reduce((a, b) -> b)
        .orElse(null);
  }

  private static List<DltRecord> dlt(
      Map<String, Object> clients, TestDatabase db, String topic, String group) {
    try (DltReplayer replayer = DltReplayer.create(clients, db.dataSource())) {
      return replayer.list(new RetryTopics(topic, group, 1).deadLetter(), DltFilter.all());
    }
  }
}
