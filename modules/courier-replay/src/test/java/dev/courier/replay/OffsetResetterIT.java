package dev.courier.replay;

import static org.assertj.core.api.Assertions.assertThat;

import dev.courier.testkit.ConsumerGroupsTool;
import dev.courier.testkit.CourierInfraTest;
import dev.courier.testkit.KafkaBroker;
import dev.courier.testkit.TestDatabase;
import dev.courier.testkit.UniqueNames;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.RecordsToDelete;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Reset targets against Kafka's own answers: ListOffsets by time and kafka-consumer-groups. */
@CourierInfraTest
class OffsetResetterIT {

  @TempDir Path tmp;

  @Test
  void aGroupThatDoesNotExistYetIsDescribedAndItsOffsetsSetInAdvance(
      KafkaBroker kafka, TestDatabase db) throws Exception {
    String topic = UniqueNames.topic("ahead");
    String group = UniqueNames.group("not-yet");
    kafka.createTopic(topic, 1);
    produce(kafka, topic, 1, 5, Instant.now().minusSeconds(60));
    OffsetResetter resetter = resetter(kafka, db, Clock.systemUTC());
    GroupView view = resetter.describe(group);
    assertThat(view.state()).isEqualTo("Dead");
    assertThat(view.rows()).isEmpty();
    ResetPlan plan = resetter.plan(group, ResetScope.topic(topic), ResetTarget.offset(3));
    assertThat(to(plan)).isEqualTo(3);
    resetter.execute(plan, "ops@example.com", "start the new consumer at offset 3");
    assertThat(resetter.describe(group).rows())
        .singleElement()
        .satisfies(r -> assertThat(r.currentOffset()).isEqualTo(3));
  }

  @Test
  void timeTargetsLandWhereListOffsetsSaysAndShiftsClamp(KafkaBroker kafka, TestDatabase db)
      throws Exception {
    String topic = UniqueNames.topic("time");
    String group = UniqueNames.group("time");
    kafka.createTopic(topic, 1);
    TopicPartition tp = new TopicPartition(topic, 0);
    Instant t0 = Instant.now().truncatedTo(ChronoUnit.SECONDS).minus(Duration.ofHours(1));
    produce(kafka, topic, 1, 10, t0);
    commit(kafka.admin(), group, Map.of(tp, 9L));
    Instant at = t0.plusSeconds(150);
    long expected =
        kafka
            .admin()
            .listOffsets(Map.of(tp, OffsetSpec.forTimestamp(at.toEpochMilli())))
            .partitionResult(tp)
            .get(30, TimeUnit.SECONDS)
            .offset();
    assertThat(expected).isEqualTo(3);

    OffsetResetter resetter =
        resetter(kafka, db, Clock.fixed(at.plus(Duration.ofHours(1)), ZoneOffset.UTC));
    assertThat(to(resetter.plan(group, ResetScope.topic(topic), ResetTarget.datetime(at))))
        .isEqualTo(expected);
    assertThat(
            to(
                resetter.plan(
                    group, ResetScope.topic(topic), ResetTarget.duration(Duration.ofHours(1)))))
        .isEqualTo(expected);
    assertThat(
            to(
                resetter.plan(
                    group, ResetScope.topic(topic), ResetTarget.datetime(t0.plusSeconds(3600)))))
        .as("no record that new: the log end")
        .isEqualTo(10);

    ResetPlan back = resetter.plan(group, ResetScope.allTopics(), ResetTarget.shiftBy(-100));
    assertThat(to(back)).isZero();
    assertThat(back.warnings()).singleElement().asString().contains("no records before it");
    ResetPlan forward = resetter.plan(group, ResetScope.allTopics(), ResetTarget.shiftBy(100));
    assertThat(to(forward)).isEqualTo(10);
    assertThat(forward.warnings()).singleElement().asString().contains("beyond the log end 10");

    kafka
        .admin()
        .deleteRecords(Map.of(tp, RecordsToDelete.beforeOffset(4)))
        .all()
        .get(30, TimeUnit.SECONDS);
    ResetPlan lost = resetter.plan(group, ResetScope.topic(topic), ResetTarget.offset(2));
    assertThat(to(lost)).isEqualTo(4);
    assertThat(lost.warnings())
        .singleElement()
        .asString()
        .contains("2 record(s) are no longer available");
    assertThat(to(resetter.plan(group, ResetScope.topic(topic), ResetTarget.earliest())))
        .isEqualTo(4);
  }

  @Test
  void describeAndResetAgreeWithKafkaConsumerGroups(KafkaBroker kafka, TestDatabase db)
      throws Exception {
    String topic = UniqueNames.topic("tool");
    String group = UniqueNames.group("tool");
    kafka.createTopic(topic, 2);
    produce(kafka, topic, 2, 5, Instant.now().minusSeconds(60));
    commit(
        kafka.admin(),
        group,
        Map.of(new TopicPartition(topic, 0), 1L, new TopicPartition(topic, 1), 4L));
    OffsetResetter resetter = resetter(kafka, db, Clock.systemUTC());
    ConsumerGroupsTool tool = new ConsumerGroupsTool(kafka.bootstrapServers());

    assertSameDescribe(resetter.describe(group), tool.describe(group));

    // Reset by Kafka's tool, read by Courier.
    tool.run(
        "--group", group, "--reset-offsets", "--to-offset", "2", "--topic", topic, "--execute");
    assertThat(resetter.describe(group).rows())
        .extracting(GroupView.Row::currentOffset)
        .containsExactly(2L, 2L);

    // Reset by Courier, read by Kafka's tool.
    resetter.execute(
        resetter.plan(group, ResetScope.topic(topic), ResetTarget.shiftBy(2)),
        "ops",
        "agreement test");
    assertThat(tool.describe(group))
        .extracting(r -> r.currentOffset().getAsLong())
        .containsExactly(4L, 4L);
    assertSameDescribe(resetter.describe(group), tool.describe(group));

    // Both dry runs plan the same targets.
    String dryRun =
        tool.run(
            "--group",
            group,
            "--reset-offsets",
            "--shift-by",
            "-3",
            "--topic",
            topic + ":1",
            "--dry-run");
    ResetPlan ours = resetter.plan(group, ResetScope.parse(topic + ":1"), ResetTarget.shiftBy(-3));
    assertThat(newOffsets(dryRun)).containsExactly(ours.moves().get(0).to());
    assertThat(ours.moves().get(0).to()).isEqualTo(1);
  }

  private static void assertSameDescribe(GroupView ours, List<ConsumerGroupsTool.Row> theirs) {
    assertThat(ours.rows()).hasSameSizeAs(theirs).isNotEmpty();
    for (int i = 0; i < theirs.size(); i++) {
      ConsumerGroupsTool.Row t = theirs.get(i);
      GroupView.Row o = ours.rows().get(i);
      assertThat(o.topic()).isEqualTo(t.topic());
      assertThat(o.partition()).isEqualTo(t.partition());
      assertThat(o.currentOffset()).isEqualTo(t.currentOffset().orElse(-1));
      assertThat(o.logEndOffset()).isEqualTo(t.logEndOffset());
      assertThat(o.lag()).isEqualTo(t.lag().orElse(-1));
    }
  }

  /** NEW-OFFSET column of the tool's reset plan table. */
  private static List<Long> newOffsets(String output) {
    List<Long> offsets = new ArrayList<>();
    for (String line : output.split("\n")) {
      String[] cells = line.trim().split("\\s+");
      if (cells.length == 4 && cells[2].matches("\\d+") && cells[3].matches("\\d+")) {
        offsets.add(Long.parseLong(cells[3]));
      }
    }
    return offsets;
  }

  private OffsetResetter resetter(KafkaBroker kafka, TestDatabase db, Clock clock) {
    return OffsetResetter.builder()
        .admin(kafka.admin())
        .auditLog(AuditLog.postgres(db.dataSource()))
        .undoDirectory(tmp)
        .clock(clock)
        .build();
  }

  private static long to(ResetPlan plan) {
    return plan.moves().get(0).to();
  }

  static void produce(
      KafkaBroker kafka, String topic, int partitions, int perPartition, Instant first)
      throws Exception {
    try (KafkaProducer<String, String> producer =
        new KafkaProducer<>(
            kafka.producerConfig(), new StringSerializer(), new StringSerializer())) {
      for (int i = 0; i < perPartition; i++) {
        for (int p = 0; p < partitions; p++) {
          producer.send(
              new ProducerRecord<>(
                  topic, p, first.plusSeconds(60L * i).toEpochMilli(), "k", "v" + i));
        }
      }
      producer.flush();
    }
  }

  static void commit(Admin admin, String group, Map<TopicPartition, Long> offsets)
      throws Exception {
    Map<TopicPartition, OffsetAndMetadata> om = new HashMap<>();
    offsets.forEach((tp, o) -> om.put(tp, new OffsetAndMetadata(o)));
    admin.alterConsumerGroupOffsets(group, om).all().get(30, TimeUnit.SECONDS);
  }
}
