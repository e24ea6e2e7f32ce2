package dev.courier.lab;

import dev.courier.examples.orders.Analytics;
import dev.courier.examples.orders.Billing;
import dev.courier.examples.orders.OrderEvents;
import dev.courier.examples.orders.Totals;
import dev.courier.idempotency.ConsumerProgress;
import dev.courier.idempotency.IdempotentConsumer;
import dev.courier.replay.AuditEntry;
import dev.courier.replay.AuditLog;
import dev.courier.replay.OffsetResetter;
import dev.courier.replay.ResetPlan;
import dev.courier.replay.ResetScope;
import dev.courier.replay.ResetTarget;
import dev.courier.replay.StreamsApplicationReset;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.utils.Utils;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsConfig;

/** Step 3: billing and analytics read one order topic on their own offsets and replay apart. */
final class ReplayStep implements LabStep {

  private static final String TOPIC = "lab.orders";
  private static final String PROJECTION = "lab.orders.projection";
  private static final String BILLING = "lab-billing";
  private static final String ANALYTICS = "lab-analytics";

  @Override
  public String id() {
    return "replay";
  }

  @Override
  public String title() {
    return "Consumer groups: billing and analytics progress and replay independently";
  }

  @Override
  public String why() {
    return "Each group's position is its own committed offset on the retained order topic (Avro,"
        + " via the schema registry). Billing is a plain consumer behind the idempotent store;"
        + " analytics is Kafka Streams with exactly-once. Rebuilding analytics from the start moves"
        + " only its offsets; replaying billing re-reads every order, and the idempotent store turns"
        + " each into a duplicate, so money is counted once. Every reset is planned first and"
        + " audited.";
  }

  @Override
  public void run(Lab lab) throws Exception {
    lab.kafka().createTopic(TOPIC, 1);
    lab.kafka().createTopic(PROJECTION, 1, Map.of("cleanup.policy", "compact"));
    // Undo files and the Streams state matter only within the step; left, every lab run kept one.
    Path work = Files.createTempDirectory("courier-lab-replay");
    try {
      run(lab, work);
    } finally {
      Utils.delete(work.toFile());
    }
  }

  private static void run(Lab lab, Path work) throws Exception {
    OffsetResetter resetter =
        OffsetResetter.builder()
            .admin(lab.kafka().admin())
            .auditLog(AuditLog.postgres(lab.db().dataSource()))
            .undoDirectory(work.resolve("undo"))
            .build();
    try (OrderEvents events =
        new OrderEvents(lab.kafka().producerConfig(), lab.registryUrl(), TOPIC)) {
      events.created("o-1", "acc-1", "30.00");
      events.paid("o-1", "30.00");
      lab.expect("billing records handled", billing(lab, p -> p.handled() >= 2).handled(), 2L);
      events.shipped("o-1");
    }
    lab.kafka()
        .admin()
        .alterConsumerGroupOffsets(
            ANALYTICS, Map.of(new TopicPartition(TOPIC, 0), new OffsetAndMetadata(0)))
        .all()
        .get(30, TimeUnit.SECONDS);
    lab.expect("committed offsets billing / analytics", committed(resetter), List.of(2L, 0L));

    lab.expect(
        "billing reads only what it has not completed",
        billing(lab, p -> p.handled() >= 1).handled(),
        1L);
    Path state = work.resolve("streams");
    try (Analytics analytics = analytics(lab, state)) {
      lab.expect("analytics projection of shipped orders", projection(lab, analytics), SHIPPED);
      lab.await("analytics to commit offset 3", () -> committed(resetter).get(1), o -> o == 3L);
    }
    lab.expect("committed offsets billing / analytics", committed(resetter), List.of(3L, 3L));

    StreamsApplicationReset streams = StreamsApplicationReset.create(lab.kafka().admin(), resetter);
    StreamsApplicationReset.Plan plan =
        streams.plan(ANALYTICS, List.of(TOPIC), ResetTarget.earliest());
    lab.say("dry run of the analytics rebuild:");
    plan.render().lines().forEach(l -> lab.say("  " + l));
    streams.execute(plan, "lab", "rebuild the projection after a bug fix");
    StreamsApplicationReset.deleteLocalState(state, ANALYTICS);
    lab.expect(
        "after the analytics reset: billing / analytics", committed(resetter), List.of(3L, 0L));
    try (Analytics analytics = analytics(lab, state)) {
      lab.expect("rebuilt analytics projection", projection(lab, analytics), SHIPPED);
    }

    ResetPlan billingPlan = resetter.plan(BILLING, ResetScope.topic(TOPIC), ResetTarget.earliest());
    lab.say("dry run of the billing replay:");
    billingPlan.render().lines().forEach(l -> lab.say("  " + l));
    lab.expect("a dry run changes nothing: billing offset", committed(resetter).get(0), 3L);
    AuditEntry entry = resetter.execute(billingPlan, "lab", "re-check billing after incident 42");
    lab.expect("billing reset audited as", entry.outcome(), "applied");
    lab.expect(
        "undo file keeps the replaced offsets",
        Files.readString(Path.of(entry.undoFile())).strip(),
        TOPIC + ",0,3");
    ConsumerProgress replay = billing(lab, p -> p.handled() >= 3);
    lab.expect(
        "billing replay: re-read / duplicates / applied",
        List.of(replay.handled(), replay.duplicates(), replay.applied()),
        List.of(3L, 3L, 0L));
    lab.expect(
        "billing totals of acc-1 (paid, payments)",
        Billing.totals(lab.db().dataSource(), "acc-1"),
        new Billing.AccountTotals(new BigDecimal("30.00"), 1));
    lab.expect("analytics offset untouched by the billing replay", committed(resetter).get(1), 3L);
  }

  private static final List<Totals> SHIPPED =
      List.of(new Totals(1, new BigDecimal("30.00")), new Totals(1, new BigDecimal("30.00")));

  private static ConsumerProgress billing(Lab lab, Predicate<ConsumerProgress> done) {
    try (IdempotentConsumer<String, Object> billing =
        Billing.consumer(
            lab.kafka().clientSettings(),
            BILLING,
            lab.registryUrl(),
            TOPIC,
            lab.db().dataSource(),
            new SimpleMeterRegistry())) {
      billing.runUntil(done);
      return billing.progress();
    }
  }

  private static Analytics analytics(Lab lab, Path state) throws Exception {
    Properties props = new Properties();
    props.put(StreamsConfig.APPLICATION_ID_CONFIG, ANALYTICS);
    props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, lab.kafka().bootstrapServers());
    props.put(StreamsConfig.STATE_DIR_CONFIG, state.toString());
    props.put(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, 100);
    props.put(StreamsConfig.REPLICATION_FACTOR_CONFIG, 1);
    Analytics analytics = Analytics.start(props, lab.registryUrl(), TOPIC, PROJECTION);
    lab.await("analytics to run", analytics::state, s -> s == KafkaStreams.State.RUNNING);
    return analytics;
  }

  /** Shipped orders and those of acc-1, once the projection has folded all three events. */
  private static List<Totals> projection(Lab lab, Analytics analytics) throws Exception {
    return lab.await(
        "the analytics projection",
        () -> {
          try {
            return List.of(analytics.query("status:shipped"), analytics.query("account:acc-1"));
          } catch (RuntimeException e) {
            return List.<Totals>of(); // stores not queryable yet during a rebalance
          }
        },
        SHIPPED::equals);
  }

  /** Committed offsets on the order topic: billing, analytics (-1 when none). */
  private static List<Long> committed(OffsetResetter resetter) {
    return List.of(offset(resetter, BILLING), offset(resetter, ANALYTICS));
  }

  private static long offset(OffsetResetter resetter, String group) {
    return resetter.describe(group).rows().stream()
        .filter(r -> r.topic().equals(TOPIC))
        .mapToLong(r -> r.currentOffset())
        .findFirst()
        .orElse(-1);
  }
}
