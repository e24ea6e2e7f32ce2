package dev.courier.benchmarks;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.courier.core.CourierHeaders;
import dev.courier.idempotency.IdempotentConsumer;
import dev.courier.idempotency.IdempotentConsumerConfig;
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
 * {@code INSERT ... ON CONFLICT DO NOTHING}. Each variant's run is done in slices, the variants'
 * slices interleaved within a round ({@link SlicedRounds}): a slice of a consumer is a consumer of
 * the run's group that resumes at its committed offset, a slice of the insert loop the next keys. A
 * consumer's time runs from its first record to its last: creating it and joining its group are a
 * start, not throughput, and cost the 100-200 ms a slice that a raw insert loop has no part of.
 * Target: batch mode at least 0.9x the smaller baseline of its round, in every round. Each run's GC
 * time, checkpoints, autovacuum runs and the hypervisor's steal are reported beside it, to tell
 * noise from a change.
 *
 * <p>Run: {@code java -cp modules/courier-benchmarks/target/benchmarks.jar
 * dev.courier.benchmarks.IdempotencyPipelineBenchmark [records] [rounds] [slices]}
 */
public final class IdempotencyPipelineBenchmark {

  private static final int BATCH = 500;
  private static final int SINGLE_RECORDS = 20_000;
  private static final int SLICES = 6;
  private static final String RAW_CONSUME = "raw consume + commit";
  private static final String RAW_INSERT = "raw INSERT ON CONFLICT, batched";
  private static final String SINGLE = "courier store, single mode";
  private static final String BATCHED = "courier store, batch mode";

  private IdempotencyPipelineBenchmark() {}

  public static void main(String[] args) throws Exception {
    int records = args.length > 0 ? Integer.parseInt(args[0]) : 20_000;
    int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 5;
    int slices = args.length > 2 ? Integer.parseInt(args[2]) : SLICES;
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
          SlicedRounds.of(rounds, slices)
              .beforeRound(() -> startFromEmptyTables(pool))
              .variant(
                  RAW_CONSUME,
                  noted(pool, conditions, RAW_CONSUME, records, new RawConsume(kafka, topic)))
              .variant(RAW_INSERT, noted(pool, conditions, RAW_INSERT, records, new RawInsert(db)))
              .variant(
                  SINGLE,
                  noted(pool, conditions, SINGLE, single, new Store(kafka, pool, topic, false)))
              .variant(
                  BATCHED,
                  noted(pool, conditions, BATCHED, records, new Store(kafka, pool, topic, true)))
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
              "%d records (single mode: the first %d), 1 partition, %d alternated rounds %s, each"
                  + " variant's run in %d slices interleaved with the others'",
              records,
              single,
              rounds,
              Rounds.warmUp(rounds),
              slices));
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
   * A variant whose run's conditions (GC, checkpoints, autovacuum, steal) are summed over its
   * slices and noted with its rate; a run that did not handle every record fails the benchmark.
   */
  private static SlicedRounds.Variant noted(
      DataSource db, List<String> conditions, String name, long records, Sliced variant) {
    return new SlicedRounds.Variant() {
      private RunConditions during = RunConditions.NONE;
      private long done;

      @Override
      public void start() throws Exception {
        variant.start();
        during = RunConditions.NONE;
        done = 0;
      }

      @Override
      public SlicedRounds.Work slice(int index, int slices) throws Exception {
        long upTo = SlicedRounds.target(records, index, slices);
        if (done >= upTo) {
          return SlicedRounds.Work.NONE;
        }
        RunConditions before = RunConditions.now(db);
        SlicedRounds.Work work = variant.run(done, upTo);
        during = during.plus(RunConditions.now(db).since(before));
        done += work.count();
        return work;
      }

      @Override
      public void end(boolean warmUp, SlicedRounds.Work total) {
        if (total.count() != records) {
          throw new IllegalStateException(name + " handled " + total.count() + " of " + records);
        }
        conditions.add(
            String.format(
                Locale.ROOT,
                "%s%s: %,.0f/s; %s",
                warmUp ? "(warm-up) " : "",
                name,
                total.rate(),
                during.describe()));
      }
    };
  }

  /** One variant's part of a run: records {@code from} (inclusive) up to about {@code upTo}. */
  private interface Sliced {

    /** A fresh group or consumer name for a new run. */
    void start();

    /** At least up to {@code upTo} in all when records remain (a poll may bring a few more). */
    SlicedRounds.Work run(long from, long upTo) throws Exception;
  }

  /**
   * Every round starts from the same database: empty key tables and a checkpoint just taken. Left
   * to grow, both tables gained 100,000 rows a run, the raw baseline fell from 83,000/s to 53,000/s
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

  private static Map<String, Object> config(KafkaBroker kafka, String group) {
    Map<String, Object> config = new HashMap<>(kafka.consumerConfig(group));
    config.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, BATCH);
    return config;
  }

  /** The same consumer settings as {@link #config}, in Courier's form. */
  private static Map<String, Object> courierConfig(KafkaBroker kafka, String group) {
    Map<String, Object> config = kafka.clientSettings();
    config.put(IdempotentConsumerConfig.GROUP_ID, group);
    config.put("kafka." + ConsumerConfig.MAX_POLL_RECORDS_CONFIG, BATCH);
    config.put(
        "kafka." + ConsumerConfig.MAX_POLL_INTERVAL_MS_CONFIG,
        kafka.consumerConfig(group).get(ConsumerConfig.MAX_POLL_INTERVAL_MS_CONFIG));
    return config;
  }

  /** A consume-and-commit loop; each slice a new consumer of the run's group. */
  private static final class RawConsume implements Sliced {
    private final KafkaBroker kafka;
    private final String topic;
    private String group;

    RawConsume(KafkaBroker kafka, String topic) {
      this.kafka = kafka;
      this.topic = topic;
    }

    @Override
    public void start() {
      group = UniqueNames.group("bench");
    }

    @Override
    public SlicedRounds.Work run(long from, long upTo) {
      long seen = 0;
      long first = 0;
      try (KafkaConsumer<byte[], byte[]> consumer =
          new KafkaConsumer<>(
              config(kafka, group), new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
        consumer.subscribe(List.of(topic));
        while (from + seen < upTo) {
          int n = consumer.poll(Duration.ofMillis(200)).count();
          if (n > 0) {
            if (first == 0) {
              first = System.nanoTime();
            }
            seen += n;
            consumer.commitSync();
          }
        }
        return new SlicedRounds.Work(seen, (System.nanoTime() - first) / 1e9);
      }
    }
  }

  /** JDBC batches of {@link #BATCH} rows, a transaction each, under one consumer name a run. */
  private static final class RawInsert implements Sliced {
    private final TestDatabase db;
    private String consumer;

    RawInsert(TestDatabase db) {
      this.db = db;
    }

    @Override
    public void start() {
      consumer = UniqueNames.group("raw");
    }

    @Override
    public SlicedRounds.Work run(long from, long upTo) throws SQLException {
      try (Connection c = db.connection();
          PreparedStatement ps =
              c.prepareStatement("INSERT INTO raw_keys VALUES (?, ?) ON CONFLICT DO NOTHING")) {
        long started = System.nanoTime();
        RawInserts.batched(
            c,
            ps,
            (int) (upTo - from),
            BATCH,
            (row, i) -> {
              row.setString(1, consumer);
              row.setString(2, "op-" + (from + i));
            });
        return new SlicedRounds.Work(upTo - from, (System.nanoTime() - started) / 1e9);
      }
    }
  }

  /** Courier's idempotent consumer; each slice a new one, same group and consumer name. */
  private static final class Store implements Sliced {
    private final KafkaBroker kafka;
    private final DataSource pool;
    private final String topic;
    private final boolean batch;
    private String group;
    private String consumerName;

    Store(KafkaBroker kafka, DataSource pool, String topic, boolean batch) {
      this.kafka = kafka;
      this.pool = pool;
      this.topic = topic;
      this.batch = batch;
    }

    @Override
    public void start() {
      group = UniqueNames.group("bench");
      consumerName = UniqueNames.group(batch ? "batch" : "single");
    }

    @Override
    public SlicedRounds.Work run(long from, long upTo) {
      AtomicLong first = new AtomicLong();
      IdempotentHandler<byte[], byte[]> handler =
          IdempotentHandler.<byte[], byte[]>builder()
              .dataSource(pool)
              .consumerName(consumerName)
              .meterRegistry(new SimpleMeterRegistry())
              // The first effect runs with the first record, after its key went in.
              .effect((c, r) -> first.compareAndSet(0, System.nanoTime()))
              .build();
      IdempotentConsumer<byte[], byte[]> consumer =
          IdempotentConsumer.builder(
                  courierConfig(kafka, group),
                  new ByteArrayDeserializer(),
                  new ByteArrayDeserializer())
              .topics(List.of(topic))
              .handler(handler)
              .batchMode(batch)
              .meterRegistry(new SimpleMeterRegistry())
              .build();
      // Until the last batch is settled, its transaction committed and its offsets sent. Closing
      // (committing, leaving the group) is not throughput, as the raw loop's is not.
      AtomicLong last = new AtomicLong();
      try (consumer) {
        consumer.runUntil(
            p -> {
              boolean done = from + p.handled() >= upTo;
              if (done) {
                last.set(System.nanoTime());
              }
              return done;
            });
      }
      return new SlicedRounds.Work(consumer.progress().handled(), (last.get() - first.get()) / 1e9);
    }
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
}
