package dev.courier.benchmarks;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.courier.core.CourierHeaders;
import dev.courier.idempotency.IdempotentConsumer;
import dev.courier.idempotency.IdempotentHandler;
import dev.courier.testkit.CourierInfra;
import dev.courier.testkit.InfraSettings;
import dev.courier.testkit.KafkaBroker;
import dev.courier.testkit.TestDatabase;
import dev.courier.testkit.UniqueNames;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import javax.sql.DataSource;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * The idempotent consumer against its raw baselines, same records, same run: consumed records/s
 * with the store (single and batch mode) next to a raw consume-and-commit loop and raw batched
 * {@code INSERT ... ON CONFLICT DO NOTHING}, alternated round by round ({@link Rounds}). A
 * consumer's rate runs from its first record to its last: creating it and joining its group are a
 * start, not throughput, and cost the 100-200 ms of a run that a raw insert loop has no part of.
 * Target: batch mode at least 0.9x the smaller baseline of its round, in every round. Each run's GC
 * time, checkpoints and autovacuum runs are reported beside it, to tell noise from a change.
 *
 * <p>Run: {@code java -cp modules/courier-benchmarks/target/benchmarks.jar
 * dev.courier.benchmarks.IdempotencyPipelineBenchmark [records] [rounds]}
 */
public final class IdempotencyPipelineBenchmark {

  private static final int BATCH = 500;
  private static final int SINGLE_RECORDS = 20_000;
  private static final String RAW_CONSUME = "raw consume + commit";
  private static final String RAW_INSERT = "raw INSERT ON CONFLICT, batched";
  private static final String SINGLE = "courier store, single mode";
  private static final String BATCHED = "courier store, batch mode";

  private IdempotencyPipelineBenchmark() {}

  public static void main(String[] args) throws Exception {
    int records = args.length > 0 ? Integer.parseInt(args[0]) : 20_000;
    int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 5;
    // One transaction a record: a run of this many says its rate; more would only take minutes.
    int single = Math.min(records, SINGLE_RECORDS);
    try (CourierInfra infra = CourierInfra.start(InfraSettings.fromEnvironment());
        TestDatabase db = infra.postgres().createDatabase("bench_idempotency");
        HikariDataSource pool = pool(db)) {
      KafkaBroker kafka = infra.kafka();
      String topic = UniqueNames.topic("bench-credits");
      kafka.createTopic(topic, 1);
      produce(kafka, topic, records);
      try (Connection c = db.connection();
          Statement s = c.createStatement()) {
        s.execute(
            "CREATE TABLE raw_keys (consumer text, operation_key text, PRIMARY KEY (consumer, operation_key))");
      }
      List<String> conditions = new ArrayList<>();
      Map<String, Measurement> m =
          Rounds.of(rounds)
              .variant(
                  RAW_CONSUME,
                  rate(
                      pool,
                      conditions,
                      RAW_CONSUME,
                      records,
                      () -> rawConsume(kafka, topic, records)))
              .variant(
                  RAW_INSERT,
                  rate(pool, conditions, RAW_INSERT, records, () -> rawInsert(db, records)))
              .variant(
                  SINGLE,
                  rate(
                      pool,
                      conditions,
                      SINGLE,
                      single,
                      () -> courier(kafka, pool, topic, single, false)))
              .variant(
                  BATCHED,
                  rate(
                      pool,
                      conditions,
                      BATCHED,
                      records,
                      () -> courier(kafka, pool, topic, records, true)))
              .run();
      List<Measurement> baselines = List.of(m.get(RAW_CONSUME), m.get(RAW_INSERT));
      List<Check> checks =
          List.of(
              new Check(
                  m.get(BATCHED).over("batch mode / smaller baseline", baselines),
                  "x",
                  Target.atLeast(0.9)),
              Check.reported(m.get(SINGLE).over("single mode / smaller baseline", baselines), "x"));
      List<String> notes = new ArrayList<>();
      notes.add(
          String.format(
              Locale.ROOT,
              "%d records (single mode: the first %d), 1 partition, %d alternated rounds %s",
              records,
              single,
              rounds,
              Rounds.warmUp(rounds)));
      notes.addAll(conditions);
      BenchmarkReport.write(
          Path.of("target", "benchmarks"),
          "idempotency",
          "records/s",
          new ArrayList<>(m.values()),
          checks,
          notes);
    }
  }

  /**
   * What one run handled, and in how many seconds: a consumer's from its first record to its last,
   * so that creating it and joining its group (a start, not throughput) stay out of the rate.
   */
  private record Timed(long count, double seconds) {}

  /** A run as a rate, with what the JVM and PostgreSQL did meanwhile noted beside it. */
  private static Rounds.Run rate(
      DataSource db, List<String> conditions, String name, int records, Supplier<Timed> run) {
    return warmUp -> {
      startFromEmptyTables(db);
      RunConditions before = RunConditions.now(db);
      Timed timed = run.get();
      long count = timed.count();
      double rate = count / timed.seconds();
      if (count != records) {
        throw new IllegalStateException(name + " handled " + count + " of " + records);
      }
      conditions.add(
          String.format(
              Locale.ROOT,
              "%s%s: %,.0f/s; %s",
              warmUp ? "(warm-up) " : "",
              name,
              rate,
              RunConditions.now(db).since(before).describe()));
      return rate;
    };
  }

  /**
   * Every run starts from the same database: empty key tables and a checkpoint just taken. Left to
   * grow, both tables gained 100,000 rows a run, the raw baseline fell from 83,000/s to 53,000/s
   * over one benchmark, and checkpoints and autovacuum landed in whichever run was going then.
   */
  private static void startFromEmptyTables(DataSource db) throws SQLException {
    try (Connection c = db.getConnection();
        Statement s = c.createStatement()) {
      s.execute("TRUNCATE raw_keys");
      s.execute(
          "DO $$ BEGIN IF to_regclass('courier_idempotency_keys') IS NOT NULL THEN"
              + " TRUNCATE courier_idempotency_keys; END IF; END $$");
      s.execute("CHECKPOINT");
    }
  }

  private static void produce(KafkaBroker kafka, String topic, int records) {
    try (KafkaProducer<byte[], byte[]> producer =
        new KafkaProducer<>(
            kafka.producerConfig(), new ByteArraySerializer(), new ByteArraySerializer())) {
      for (int i = 0; i < records; i++) {
        ProducerRecord<byte[], byte[]> r =
            new ProducerRecord<>(
                topic,
                ("acc-" + (i % 100)).getBytes(StandardCharsets.UTF_8),
                ("{\"account\":" + (i % 100) + ",\"amount\":10}").getBytes(StandardCharsets.UTF_8));
        r.headers().add(CourierHeaders.ID, ("op-" + i).getBytes(StandardCharsets.UTF_8));
        producer.send(r);
      }
      producer.flush();
    }
  }

  private static Map<String, Object> config(KafkaBroker kafka) {
    Map<String, Object> config = new HashMap<>(kafka.consumerConfig(UniqueNames.group("bench")));
    config.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, BATCH);
    return config;
  }

  private static Timed rawConsume(KafkaBroker kafka, String topic, int records) {
    long seen = 0;
    long first = 0;
    try (KafkaConsumer<byte[], byte[]> consumer =
        new KafkaConsumer<>(
            config(kafka), new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
      consumer.subscribe(List.of(topic));
      while (seen < records) {
        int n = consumer.poll(Duration.ofMillis(200)).count();
        if (n > 0) {
          if (first == 0) {
            first = System.nanoTime();
          }
          seen += n;
          consumer.commitSync();
        }
      }
      return new Timed(seen, (System.nanoTime() - first) / 1e9);
    }
  }

  private static Timed rawInsert(TestDatabase db, int records) {
    long started = System.nanoTime();
    String consumer = UniqueNames.group("raw");
    try (Connection c = db.connection();
        PreparedStatement ps =
            c.prepareStatement("INSERT INTO raw_keys VALUES (?, ?) ON CONFLICT DO NOTHING")) {
      RawInserts.batched(
          c,
          ps,
          records,
          BATCH,
          (row, i) -> {
            row.setString(1, consumer);
            row.setString(2, "op-" + i);
          });
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
    return new Timed(records, (System.nanoTime() - started) / 1e9);
  }

  /** A pool, as a service would use: a PostgreSQL connection per record costs a backend fork. */
  private static HikariDataSource pool(TestDatabase db) {
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(db.jdbcUrl());
    config.setUsername(db.username());
    config.setPassword(db.password());
    config.setMaximumPoolSize(4);
    return new HikariDataSource(config);
  }

  private static Timed courier(
      KafkaBroker kafka, DataSource pool, String topic, int records, boolean batch) {
    AtomicLong first = new AtomicLong();
    IdempotentHandler<byte[], byte[]> handler =
        IdempotentHandler.<byte[], byte[]>builder()
            .dataSource(pool)
            .consumerName(UniqueNames.group(batch ? "batch" : "single"))
            .meterRegistry(new SimpleMeterRegistry())
            // The first effect runs with the first record, after its key went in.
            .effect((c, r) -> first.compareAndSet(0, System.nanoTime()))
            .build();
    IdempotentConsumer<byte[], byte[]> consumer =
        IdempotentConsumer.builder(
                config(kafka), new ByteArrayDeserializer(), new ByteArrayDeserializer())
            .topics(List.of(topic))
            .handler(handler)
            .batchMode(batch)
            .meterRegistry(new SimpleMeterRegistry())
            .build();
    // Until the last batch is settled, its transaction committed and its offsets sent. Closing
    // (leaving the group, ending the fetch session) is not throughput, as the raw loop's is not.
    AtomicLong last = new AtomicLong();
    try (consumer) {
      consumer.runUntil(
          p -> {
            boolean done = p.handled() >= records;
            if (done) {
              last.set(System.nanoTime());
            }
            return done;
          });
    }
    return new Timed(consumer.progress().handled(), (last.get() - first.get()) / 1e9);
  }
}
