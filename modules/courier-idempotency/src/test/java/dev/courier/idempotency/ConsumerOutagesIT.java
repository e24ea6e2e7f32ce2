package dev.courier.idempotency;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.courier.core.CourierHeaders;
import dev.courier.core.ServiceHealth;
import dev.courier.testkit.CommitHistory;
import dev.courier.testkit.CourierInfraTest;
import dev.courier.testkit.KafkaBroker;
import dev.courier.testkit.KafkaProcess;
import dev.courier.testkit.PostgresProcess;
import dev.courier.testkit.UniqueNames;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;

/**
 * PostgreSQL crashed under a running idempotent consumer, PostgreSQL down when it starts, and its
 * broker killed: the consumer waits each outage out, says so on its health, commits nothing past
 * the records the database did not take, and afterwards every operation key's effect is applied
 * exactly once.
 */
@CourierInfraTest
class ConsumerOutagesIT {

  private static final Duration TIMEOUT = Duration.ofSeconds(90);
  private static final int RECORDS = 1_500;
  private static final int KEYS = 300;

  /** Single mode takes a transaction a record: fewer of them. */
  private static final int SINGLE_RECORDS = 200;

  private static final int SINGLE_KEYS = 50;

  @Test
  void aCrashMidBatchIsWaitedOutAndEveryKeyIsAppliedOnce(KafkaBroker kafka) throws Exception {
    crashMidRun(kafka, true, RECORDS, KEYS);
  }

  /**
   * In single mode a poll's records are handled partition by partition: the crash stops one
   * partition after others were settled, and only what was not done is read again. Reading the
   * settled partitions again marked their offsets done again, below what was committed, and the
   * group's position moved back.
   */
  @Test
  void aCrashInSingleModeReadsAgainOnlyWhatWasNotDoneAndNoCommitMovesBack(KafkaBroker kafka)
      throws Exception {
    crashMidRun(kafka, false, SINGLE_RECORDS * 2, SINGLE_KEYS);
  }

  private void crashMidRun(KafkaBroker kafka, boolean batch, int records, int keys)
      throws Exception {
    try (PostgresProcess pg = PostgresProcess.builder().build().start()) {
      String topic = produce(kafka, records, keys);
      String group = UniqueNames.group("outage");
      ExecutorService thread = Executors.newSingleThreadExecutor();
      try (IdempotentConsumer<String, String> consumer =
          consumer(
              kafka.bootstrapServers(),
              pg,
              topic,
              batch,
              Map.of(IdempotentConsumerConfig.GROUP_ID, group))) {
        Future<?> loop = thread.submit(() -> consumer.runUntil(p -> p.handled() >= records));
        await().atMost(TIMEOUT).until(() -> consumer.progress().handled() >= records / 10);
        pg.crash();
        ServiceHealth waiting =
            await().atMost(TIMEOUT).until(consumer::health, h -> h.status().equals("WAITING"));
        assertThat(waiting.ready()).isFalse();
        assertThat(waiting.reason()).contains("the database is unavailable");
        assertThat(loop.isDone()).as("the loop waits, it does not stop").isFalse();
        pg.start();
        loop.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
        assertThat(consumer.health().status()).isEqualTo("RUNNING");
      } finally {
        thread.shutdownNow();
      }
      assertEachKeyAppliedOnce(pg, keys);
      CommitHistory history = CommitHistory.of(kafka, group);
      assertThat(history.commits()).isNotEmpty();
      assertThat(history.backwardMoves()).as("committed offsets only move forward").isEmpty();
    }
  }

  @Test
  void startedWhilePostgresIsDownItWaitsThenApplies(KafkaBroker kafka) throws Exception {
    try (PostgresProcess pg = PostgresProcess.builder().build()) {
      String topic = produce(kafka, SINGLE_RECORDS, SINGLE_KEYS);
      ExecutorService thread = Executors.newSingleThreadExecutor();
      // Built while the database is away: the store's tables are created before the first record.
      try (IdempotentConsumer<String, String> consumer = consumer(kafka, pg, topic, false)) {
        Future<?> loop = thread.submit(() -> consumer.runUntil(p -> p.handled() >= SINGLE_RECORDS));
        await()
            .atMost(TIMEOUT)
            .until(consumer::health, h -> h.reason().contains("the database is unavailable"));
        assertThat(consumer.progress().handled()).isZero();
        pg.start();
        loop.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
      } finally {
        thread.shutdownNow();
      }
      assertEachKeyAppliedOnce(pg, SINGLE_KEYS);
    }
  }

  @Test
  void withItsBrokerGoneItIsUnreadyNamingKafkaAndThenGoesOn() throws Exception {
    try (PostgresProcess pg = PostgresProcess.builder().build().start();
        KafkaProcess kafka = KafkaProcess.plaintext().start()) {
      String topic = UniqueNames.topic("gone");
      kafka.createTopic(topic, 1);
      produce(kafka.bootstrapServers(), topic, 10, 0);
      ExecutorService thread = Executors.newSingleThreadExecutor();
      try (IdempotentConsumer<String, String> consumer =
          consumer(kafka.bootstrapServers(), pg, topic, true)) {
        // Until applied, not handled: the kill may come before the commit of the first ten lands,
        // and reading them again counts ten duplicates, which ended the loop before the new ten.
        Future<?> loop = thread.submit(() -> consumer.runUntil(p -> p.applied() >= 20));
        await().atMost(TIMEOUT).until(() -> consumer.progress().applied() >= 10);
        assertThat(consumer.health().ready()).isTrue();
        kafka.kill();
        ServiceHealth gone =
            await()
                .atMost(TIMEOUT)
                .until(consumer::health, h -> h.reason().contains("no connection to Kafka at"));
        assertThat(gone.ready()).isFalse();
        kafka.start();
        await().atMost(TIMEOUT).until(() -> consumer.health().ready());
        produce(kafka.bootstrapServers(), topic, 10, 10);
        loop.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
      } finally {
        thread.shutdownNow();
      }
      assertEachKeyAppliedOnce(pg, 20);
    }
  }

  /**
   * Cut off by a network partition its connections stay open and nothing is refused: it is unready
   * naming the silence, and once healed it takes what was produced meanwhile, each key once.
   */
  @Test
  void cutOffByAPartitionItIsUnreadyNamingTheSilenceAndThenGoesOn() throws Exception {
    try (PostgresProcess pg = PostgresProcess.builder().build().start();
        KafkaProcess kafka = KafkaProcess.withProxiedListener().start()) {
      String topic = UniqueNames.topic("cut");
      kafka.createTopic(topic, 1);
      produce(kafka.bootstrapServers(), topic, 10, 0);
      ExecutorService thread = Executors.newSingleThreadExecutor();
      String proxied = kafka.proxiedClientSettings().get("bootstrap.servers");
      String group = UniqueNames.group("cut");
      // Silence is judged against the client's request timeout: 5 s, not 30, keeps the test short.
      Map<String, Object> more =
          Map.of(IdempotentConsumerConfig.GROUP_ID, group, "kafka.request.timeout.ms", 5000);
      try (IdempotentConsumer<String, String> consumer = consumer(proxied, pg, topic, true, more)) {
        Future<?> loop = thread.submit(() -> consumer.runUntil(p -> p.applied() >= 20));
        await().atMost(TIMEOUT).until(() -> kafka.broker().committed(group, topic, 0) == 10);
        kafka.proxy().partition();
        produce(kafka.bootstrapServers(), topic, 10, 10);
        ServiceHealth cut =
            await()
                .atMost(TIMEOUT)
                .until(consumer::health, h -> h.reason().contains("no answer from Kafka at"));
        assertThat(cut.ready()).isFalse();
        assertThat(consumer.progress().handled()).isEqualTo(10);
        kafka.proxy().heal();
        loop.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
        assertThat(consumer.health().ready()).isTrue();
      } finally {
        thread.shutdownNow();
      }
      assertEachKeyAppliedOnce(pg, 20);
    }
  }

  private static IdempotentConsumer<String, String> consumer(
      KafkaBroker kafka, PostgresProcess pg, String topic, boolean batch) {
    return consumer(kafka.bootstrapServers(), pg, topic, batch, Map.of());
  }

  private static IdempotentConsumer<String, String> consumer(
      String bootstrapServers, PostgresProcess pg, String topic, boolean batch) {
    return consumer(bootstrapServers, pg, topic, batch, Map.of());
  }

  private static IdempotentConsumer<String, String> consumer(
      String bootstrapServers,
      PostgresProcess pg,
      String topic,
      boolean batch,
      Map<String, Object> more) {
    DataSource db = pg.dataSource("postgres");
    IdempotentHandler<String, String> handler =
        IdempotentHandler.<String, String>builder()
            .dataSource(db)
            .consumerName(UniqueNames.group("outage"))
            .config(Map.of(IdempotencyConfig.BATCH_MODE, batch))
            .effect(
                (c, record) -> {
                  try (Statement s = c.createStatement()) {
                    s.execute("CREATE TABLE IF NOT EXISTS outage_effects (op text)");
                  }
                  try (PreparedStatement ps =
                      c.prepareStatement("INSERT INTO outage_effects VALUES (?)")) {
                    ps.setString(1, record.value());
                    ps.executeUpdate();
                  }
                })
            .build();
    Map<String, Object> settings = new java.util.HashMap<>();
    settings.put(IdempotentConsumerConfig.BOOTSTRAP_SERVERS, bootstrapServers);
    settings.put(IdempotentConsumerConfig.GROUP_ID, UniqueNames.group("outage"));
    settings.put("kafka.max.poll.records", 50);
    settings.putAll(more);
    return IdempotentConsumer.builder(settings, new StringDeserializer(), new StringDeserializer())
        .topics(java.util.List.of(topic))
        .handler(handler)
        .build();
  }

  /** {@code records} records over {@code keys} operation keys: each key several times. */
  private static String produce(KafkaBroker kafka, int records, int keys) throws Exception {
    String topic = UniqueNames.topic("outage");
    kafka.createTopic(topic, 2);
    produce(kafka.bootstrapServers(), topic, records, keys, 0);
    return topic;
  }

  private static void produce(String bootstrapServers, String topic, int records, int from)
      throws Exception {
    produce(bootstrapServers, topic, records, Integer.MAX_VALUE, from);
  }

  /** Records {@code op-<from + i % keys>}. */
  private static void produce(
      String bootstrapServers, String topic, int records, int keys, int from) throws Exception {
    Map<String, Object> config =
        Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers, "linger.ms", 5);
    try (KafkaProducer<String, String> producer =
        new KafkaProducer<>(config, new StringSerializer(), new StringSerializer())) {
      for (int i = 0; i < records; i++) {
        String op = "op-" + (from + i % keys);
        ProducerRecord<String, String> r = new ProducerRecord<>(topic, op, op);
        r.headers().add(CourierHeaders.ID, op.getBytes(StandardCharsets.UTF_8));
        producer.send(r);
      }
      producer.flush();
    }
  }

  private static void assertEachKeyAppliedOnce(PostgresProcess pg, int keys) throws Exception {
    try (Connection c = pg.dataSource("postgres").getConnection();
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT count(*), count(DISTINCT op) FROM outage_effects")) {
      rs.next();
      assertThat(rs.getLong(2)).as("every key applied").isEqualTo(keys);
      assertThat(rs.getLong(1)).as("no key applied twice").isEqualTo(keys);
    }
  }
}
