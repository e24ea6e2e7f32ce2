package dev.courier.outbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.courier.core.CourierHeaders;
import dev.courier.testkit.CourierInfraTest;
import dev.courier.testkit.JvmWorker;
import dev.courier.testkit.KafkaProcess;
import dev.courier.testkit.TcpProxy;
import dev.courier.testkit.TestDatabase;
import dev.courier.testkit.UniqueNames;
import dev.courier.testkit.WorkerProcess;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.Test;

/**
 * A leader partitioned from Kafka and PostgreSQL together, with a batch it could not deliver: the
 * standby takes over and publishes, and when the network heals the old leader sends nothing more.
 * The partition outlasts the connections, so what was in the network when it began is gone; what is
 * asserted is what the relay itself sends after it lost the leadership.
 */
@CourierInfraTest
class RelayPartitionIT {

  private static final Duration TIMEOUT = Duration.ofSeconds(90);

  @Test
  void aPartitionedLeaderSendsNothingOnceAStandbyTookOver(TestDatabase db) throws Exception {
    try (KafkaProcess kafka = KafkaProcess.withProxiedListener().start();
        TcpProxy postgres = TcpProxy.to(db.server().port())) {
      String prefix = UniqueNames.topic("partition").replace('-', '_');
      Map<String, String> settings = settings(kafka, db, prefix);
      String topic = prefix + ".account";
      kafka.createTopic(topic, 1);
      Map<String, String> cutOff = cutOff(settings, kafka, postgres);
      try (WorkerProcess leader = startLeader(cutOff);
          OutboxRelay standby =
              OutboxRelay.create(settings, new SimpleMeterRegistry(), Clock.systemUTC())) {
        await().atMost(TIMEOUT).until(() -> standby.health().status().equals("STANDBY"));
        List<String> written = new ArrayList<>();
        written.add(OutboxFixture.write(db, "acc-1"));
        awaitDelivered(kafka, topic, written);

        // Kafka first, so the leader holds a batch it cannot deliver and starts sending it again;
        // then PostgreSQL, whose lock session of the leader ends after the lease.
        kafka.proxy().partition();
        written.add(OutboxFixture.write(db, "acc-1"));
        await().atMost(TIMEOUT).until(() -> leader.output().contains("sending it and the"));
        postgres.partition();
        written.add(OutboxFixture.write(db, "acc-1"));
        awaitDelivered(kafka, topic, written);

        // The old leader either gives its batch up (its lease lapsed by its own clock) or sends it
        // again once more after the takeover; what it sent while it still led has expired in its
        // producer by then (outbox.delivery.timeout.ms).
        await()
            .atMost(TIMEOUT)
            .until(
                () ->
                    leader.output().contains("no longer the leader")
                        || count(leader.output(), "Kafka did not take") >= 3);
        // The partition outlasted the connections: both sides reset. Kafka comes back first, so
        // the old leader cannot learn from PostgreSQL that another relay leads.
        kafka.proxy().cutAll();
        postgres.cutAll();
        kafka.proxy().heal();
        await().atMost(TIMEOUT).until(() -> leader.output().contains("no longer the leader"));
        postgres.heal();
        written.add(OutboxFixture.write(db, "acc-1"));
        awaitDelivered(kafka, topic, written);

        List<ConsumerRecord<String, String>> records = read(kafka, topic, Duration.ofSeconds(2));
        long oldTerm = OutboxFixture.incarnation(records.get(0));
        int firstOfNewTerm = -1;
        for (int i = 0; i < records.size(); i++) {
          long term = OutboxFixture.incarnation(records.get(i));
          if (term != oldTerm && firstOfNewTerm < 0) {
            firstOfNewTerm = i;
          }
          if (firstOfNewTerm >= 0) {
            assertThat(term)
                .as("record %d (%s) follows the new term's first record", i, id(records.get(i)))
                .isNotEqualTo(oldTerm);
          }
        }
        assertThat(firstOfNewTerm).as("the standby took over").isPositive();
        assertThat(records.stream().map(RelayPartitionIT::id).distinct().toList())
            .as("nothing lost, in commit order")
            .containsExactlyElementsOf(written);
      }
    }
  }

  /**
   * A leader cut off from PostgreSQL for longer than its lease, with a batch in flight that Kafka
   * does not take: a standby takes over, publishes that batch's event and a newer one, and stops.
   * The old leader then reaches PostgreSQL again and leads once more, in a new term, before it
   * reaches Kafka: nothing of its former term may follow the standby's records.
   */
  @Test
  void aLeaderThatLeadsAgainAfterAStandbysTermSendsNothingOfItsFormerOne(TestDatabase db)
      throws Exception {
    try (KafkaProcess kafka = KafkaProcess.withProxiedListener().start();
        TcpProxy postgres = TcpProxy.to(db.server().port())) {
      String prefix = UniqueNames.topic("again").replace('-', '_');
      Map<String, String> settings = settings(kafka, db, prefix);
      String topic = prefix + ".account";
      kafka.createTopic(topic, 1);
      Map<String, String> cutOff = cutOff(settings, kafka, postgres);
      try (WorkerProcess leader = startLeader(cutOff)) {
        List<String> written = new ArrayList<>();
        written.add(OutboxFixture.write(db, "acc-1"));
        awaitDelivered(kafka, topic, written);

        kafka.proxy().partition();
        written.add(OutboxFixture.write(db, "acc-1"));
        await().atMost(TIMEOUT).until(() -> leader.output().contains("sending it and the"));
        postgres.partition();
        try (OutboxRelay standby =
            OutboxRelay.create(settings, new SimpleMeterRegistry(), Clock.systemUTC())) {
          awaitDelivered(kafka, topic, written); // the standby leads and publishes the batch
          written.add(OutboxFixture.write(db, "acc-1"));
          awaitDelivered(kafka, topic, written);
        }
        postgres.cutAll();
        postgres.heal();
        await().atMost(TIMEOUT).until(() -> leader.output().contains("again in a new term"));
        kafka.proxy().cutAll();
        kafka.proxy().heal();
        written.add(OutboxFixture.write(db, "acc-1"));
        awaitDelivered(kafka, topic, written);

        List<ConsumerRecord<String, String>> records = read(kafka, topic, Duration.ofSeconds(3));
        long newest = 0;
        for (int i = 0; i < records.size(); i++) {
          long term = OutboxFixture.incarnation(records.get(i));
          assertThat(term)
              .as("record %d (%s) of a term older than one before it", i, id(records.get(i)))
              .isGreaterThanOrEqualTo(newest);
          newest = term;
        }
        assertThat(records.stream().map(RelayPartitionIT::id).distinct().toList())
            .as("nothing lost, in commit order")
            .containsExactlyElementsOf(written);
      }
    }
  }

  /** A relay of this broker and database, with a 4 s lease and 5 s to deliver. */
  private static Map<String, String> settings(KafkaProcess kafka, TestDatabase db, String prefix) {
    Map<String, String> settings =
        new HashMap<>(
            OutboxRelayConfig.settings(
                kafka.bootstrapServers(), db.jdbcUrl(), db.username(), db.password(), prefix));
    settings.put(OutboxRelayConfig.LEADER_LEASE_MS, "4000");
    settings.put(OutboxRelayConfig.DELIVERY_TIMEOUT_MS, "5000");
    return settings;
  }

  /** The same relay, reaching Kafka and PostgreSQL through proxies that can cut it off. */
  private static Map<String, String> cutOff(
      Map<String, String> settings, KafkaProcess kafka, TcpProxy postgres) {
    Map<String, String> cutOff = new HashMap<>(settings);
    cutOff.put(
        OutboxRelayConfig.BOOTSTRAP_SERVERS,
        kafka.proxiedClientSettings().get("bootstrap.servers"));
    cutOff.put(OutboxRelayConfig.DATABASE_PORT, String.valueOf(postgres.port()));
    return cutOff;
  }

  private static WorkerProcess startLeader(Map<String, String> settings) {
    String[] args =
        settings.entrySet().stream()
            .map(e -> e.getKey() + "=" + e.getValue())
            .toArray(String[]::new);
    WorkerProcess leader =
        JvmWorker.of(RelayMain.class).args(args).name("relay-partitioned").start();
    await()
        .atMost(TIMEOUT)
        .until(() -> leader.output().contains(RelayMain.STREAMING) || !leader.isAlive());
    assertThat(leader.output()).as("the first relay leads").contains(RelayMain.STREAMING);
    return leader;
  }

  private static void awaitDelivered(KafkaProcess kafka, String topic, List<String> ids) {
    await()
        .atMost(TIMEOUT)
        .until(
            () ->
                read(kafka, topic, Duration.ofMillis(300)).stream()
                    .map(RelayPartitionIT::id)
                    .toList()
                    .containsAll(ids));
  }

  /** Every record of the topic, read directly (not through the proxy). */
  private static List<ConsumerRecord<String, String>> read(
      KafkaProcess kafka, String topic, Duration quiet) {
    Map<String, Object> config = new HashMap<>(kafka.clientSettings("", ""));
    config.put("group.id", UniqueNames.group("reader"));
    config.put("auto.offset.reset", "earliest");
    config.put("enable.auto.commit", "false");
    List<ConsumerRecord<String, String>> records = new ArrayList<>();
    try (KafkaConsumer<String, String> consumer =
        new KafkaConsumer<>(config, new StringDeserializer(), new StringDeserializer())) {
      consumer.subscribe(List.of(topic));
      long deadline = System.nanoTime() + TIMEOUT.toNanos();
      long lastSeen = System.nanoTime();
      while (System.nanoTime() < deadline
          && (records.isEmpty() || System.nanoTime() - lastSeen < quiet.toNanos())) {
        var batch = consumer.poll(Duration.ofMillis(100));
        if (!batch.isEmpty()) {
          batch.forEach(records::add);
          lastSeen = System.nanoTime();
        }
      }
    }
    return records;
  }

  private static int count(String text, String part) {
    int n = 0;
    for (int i = text.indexOf(part); i >= 0; i = text.indexOf(part, i + 1)) {
      n++;
    }
    return n;
  }

  private static String id(ConsumerRecord<?, ?> record) {
    return OutboxFixture.header(record, CourierHeaders.ID);
  }
}
