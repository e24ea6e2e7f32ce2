package dev.courier.examples.orders;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.courier.idempotency.ConsumerProgress;
import dev.courier.idempotency.IdempotentConsumer;
import dev.courier.replay.AuditEntry;
import dev.courier.replay.AuditLog;
import dev.courier.replay.GroupActiveException;
import dev.courier.replay.OffsetResetter;
import dev.courier.replay.ResetPlan;
import dev.courier.replay.ResetScope;
import dev.courier.replay.ResetTarget;
import dev.courier.replay.StreamsApplicationReset;
import dev.courier.testkit.BackendMatrix;
import dev.courier.testkit.CourierInfra;
import dev.courier.testkit.CourierInfraTest;
import dev.courier.testkit.KafkaBroker;
import dev.courier.testkit.TestDatabase;
import dev.courier.testkit.UniqueNames;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Billing (plain consumer, idempotent store) and analytics (Kafka Streams, exactly-once) read one
 * retained order topic, progress on their own committed offsets, and replay independently.
 */
@CourierInfraTest
class ReplayIT {

  private static final Duration TIMEOUT = Duration.ofSeconds(90);

  @TempDir Path tmp;

  @Test
  @BackendMatrix
  void groupsProgressAndReplayIndependently(CourierInfra infra, KafkaBroker kafka, TestDatabase db)
      throws Exception {
    String topic = UniqueNames.topic("orders");
    String projectionTopic = topic + ".projection";
    String billingGroup = UniqueNames.group("billing");
    String analyticsApp = UniqueNames.group("analytics");
    String registry = infra.schemaRegistry().url();
    kafka.createTopic(topic, 1);
    kafka.createTopic(projectionTopic, 1, Map.of("cleanup.policy", "compact"));
    TopicPartition tp = new TopicPartition(topic, 0);
    OffsetResetter resetter =
        OffsetResetter.builder()
            .admin(kafka.admin())
            .auditLog(AuditLog.postgres(db.dataSource()))
            .undoDirectory(tmp.resolve("undo"))
            .build();

    try (OrderEvents events = new OrderEvents(kafka.producerConfig(), registry, topic)) {
      events.created("o-1", "acc-1", "30.00");
      events.paid("o-1", "30.00");
      // Billing completes created and paid: committed offset 2.
      ConsumerProgress first =
          runBilling(kafka, registry, topic, billingGroup, db, p -> p.handled() >= 2);
      assertThat(first.applied()).isEqualTo(2);
      events.shipped("o-1");
    }
    // Analytics has completed nothing: committed offset 0.
    kafka
        .admin()
        .alterConsumerGroupOffsets(analyticsApp, Map.of(tp, new OffsetAndMetadata(0)))
        .all()
        .get(30, TimeUnit.SECONDS);
    assertThat(committed(resetter, billingGroup, topic)).isEqualTo(2);
    assertThat(committed(resetter, analyticsApp, topic)).isZero();

    // Each group reads only what it has not completed.
    ConsumerProgress billingRun =
        runBilling(kafka, registry, topic, billingGroup, db, p -> p.handled() >= 1);
    assertThat(billingRun.handled()).isEqualTo(1);
    assertThat(billingRun.applied()).isEqualTo(1);
    assertThat(Billing.totals(db.dataSource(), "acc-1"))
        .isEqualTo(new Billing.AccountTotals(new BigDecimal("30.00"), 1));

    Path stateDir = tmp.resolve("streams");
    try (Analytics analytics =
        startAnalytics(kafka, registry, analyticsApp, stateDir, topic, projectionTopic)) {
      awaitProjection(analytics);
      await().atMost(TIMEOUT).until(() -> committed(resetter, analyticsApp, topic) == 3);
    }
    assertThat(committed(resetter, billingGroup, topic)).isEqualTo(3);

    // Replay analytics from the start: same projection, billing untouched.
    StreamsApplicationReset streamsReset = StreamsApplicationReset.create(kafka.admin(), resetter);
    StreamsApplicationReset.Plan streamsPlan =
        streamsReset.plan(analyticsApp, List.of(topic), ResetTarget.earliest());
    assertThat(streamsPlan.inputs().get(0).moves().get(0).reReads()).isEqualTo(3);
    assertThat(streamsPlan.internalTopics())
        .isNotEmpty()
        .allMatch(t -> t.startsWith(analyticsApp + "-"));
    assertThat(streamsPlan.render()).contains("internal topics to delete").contains("cleanUp");
    streamsReset.execute(streamsPlan, "ops@example.com", "projection rebuilt after a bug fix");
    StreamsApplicationReset.deleteLocalState(stateDir, analyticsApp);
    assertThat(committed(resetter, analyticsApp, topic)).isZero();
    try (Analytics analytics =
        startAnalytics(kafka, registry, analyticsApp, stateDir, topic, projectionTopic)) {
      awaitProjection(analytics);
    }
    assertThat(committed(resetter, billingGroup, topic)).isEqualTo(3);
    assertThat(Billing.totals(db.dataSource(), "acc-1"))
        .isEqualTo(new Billing.AccountTotals(new BigDecimal("30.00"), 1));

    // Replay billing from the start: every event read again, every credit still applied once.
    ResetPlan billingPlan =
        resetter.plan(billingGroup, ResetScope.topic(topic), ResetTarget.earliest());
    assertThat(billingPlan.moves())
        .singleElement()
        .satisfies(
            m -> {
              assertThat(m.from()).isEqualTo(3);
              assertThat(m.to()).isZero();
              assertThat(m.reReads()).isEqualTo(3);
            });
    assertThat(committed(resetter, billingGroup, topic)).as("a plan changes nothing").isEqualTo(3);
    assertThatThrownBy(() -> resetter.execute(billingPlan, "ops@example.com", " "))
        .hasMessageContaining("reason is required");
    AuditEntry entry =
        resetter.execute(billingPlan, "ops@example.com", "re-check billing after incident 42");
    assertThat(entry.outcome()).isEqualTo("applied");
    assertThat(entry.from()).containsEntry(tp, 3L);
    assertThat(entry.to()).containsEntry(tp, 0L);
    assertThat(Files.readString(Path.of(entry.undoFile()))).isEqualTo(topic + ",0,3\n");
    assertThat(resetter.describe(billingGroup).rows().get(0).lag()).isEqualTo(3);

    ConsumerProgress replay =
        runBilling(kafka, registry, topic, billingGroup, db, p -> p.handled() >= 3);
    assertThat(replay.duplicates()).isEqualTo(3);
    assertThat(replay.applied()).isZero();
    assertThat(Billing.totals(db.dataSource(), "acc-1"))
        .isEqualTo(new Billing.AccountTotals(new BigDecimal("30.00"), 1));

    // Undo restores exactly what an entry replaced.
    AuditEntry toOne =
        resetter.execute(
            resetter.plan(billingGroup, ResetScope.allTopics(), ResetTarget.offset(1)),
            "ops@example.com",
            "try offset 1");
    assertThat(committed(resetter, billingGroup, topic)).isEqualTo(1);
    AuditEntry undo = resetter.undo(toOne.id(), "ops@example.com", "wrong target");
    assertThat(committed(resetter, billingGroup, topic)).isEqualTo(3);
    assertThat(undo.undoOf()).contains(toOne.id());
    assertThat(AuditLog.postgres(db.dataSource()).forGroup(billingGroup))
        .extracting(AuditEntry::action)
        .containsExactly("undo", "reset", "reset");
  }

  @Test
  void refusesToResetAGroupWithLiveMembers(KafkaBroker kafka, TestDatabase db) throws Exception {
    String topic = UniqueNames.topic("active");
    String group = UniqueNames.group("active");
    kafka.createTopic(topic, 1);
    OffsetResetter resetter =
        OffsetResetter.builder()
            .admin(kafka.admin())
            .auditLog(AuditLog.postgres(db.dataSource()))
            .undoDirectory(tmp)
            .build();
    try (KafkaConsumer<String, String> member =
        new KafkaConsumer<>(
            kafka.consumerConfig(group), new StringDeserializer(), new StringDeserializer())) {
      member.subscribe(List.of(topic));
      await()
          .atMost(TIMEOUT)
          .until(
              () -> {
                member.poll(Duration.ofMillis(100));
                return !member.assignment().isEmpty();
              });
      ResetPlan plan = resetter.plan(group, ResetScope.topic(topic), ResetTarget.earliest());
      String memberId = resetter.describe(group).members().get(0).consumerId();
      assertThatThrownBy(() -> resetter.execute(plan, "ops", "test"))
          .isInstanceOf(GroupActiveException.class)
          .hasMessageContaining("1 active member")
          .hasMessageContaining(memberId);
      assertThat(AuditLog.postgres(db.dataSource()).forGroup(group)).isEmpty();
    }
  }

  /**
   * The group's committed offset on the order topic (Streams also commits its repartition topics).
   */
  private static long committed(OffsetResetter resetter, String group, String topic) {
    return resetter.describe(group).rows().stream()
        .filter(r -> r.topic().equals(topic))
        .findFirst()
        .orElseThrow()
        .currentOffset();
  }

  private static ConsumerProgress runBilling(
      KafkaBroker kafka,
      String registry,
      String topic,
      String group,
      TestDatabase db,
      java.util.function.Predicate<ConsumerProgress> done) {
    try (IdempotentConsumer<String, Object> billing =
        Billing.consumer(
            kafka.clientSettings(),
            group,
            registry,
            topic,
            db.dataSource(),
            new SimpleMeterRegistry())) {
      billing.runUntil(done);
      return billing.progress();
    }
  }

  private static Analytics startAnalytics(
      KafkaBroker kafka, String registry, String app, Path stateDir, String topic, String output) {
    Properties props = new Properties();
    props.put(StreamsConfig.APPLICATION_ID_CONFIG, app);
    props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
    props.put(StreamsConfig.STATE_DIR_CONFIG, stateDir.toString());
    props.put(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, 100);
    props.put(StreamsConfig.REPLICATION_FACTOR_CONFIG, 1);
    Analytics analytics = Analytics.start(props, registry, topic, output);
    await().atMost(TIMEOUT).until(() -> analytics.state() == KafkaStreams.State.RUNNING);
    return analytics;
  }

  /** One order, created by acc-1 for 30.00 and shipped: the projection after all three events. */
  private static void awaitProjection(Analytics analytics) {
    await()
        .atMost(TIMEOUT)
        .ignoreExceptions()
        .untilAsserted(
            () -> {
              assertThat(analytics.query("status:shipped"))
                  .isEqualTo(new Totals(1, new BigDecimal("30.00")));
              assertThat(analytics.query("status:created"))
                  .isEqualTo(new Totals(0, new BigDecimal("0.00")));
              assertThat(analytics.query("account:acc-1"))
                  .isEqualTo(new Totals(1, new BigDecimal("30.00")));
            });
  }
}
