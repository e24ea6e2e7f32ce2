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
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.LongSupplier;
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
 * {@code INSERT ... ON CONFLICT DO NOTHING}. Target: batch mode at least 0.7x the smaller baseline.
 *
 * <p>Run: {@code java -cp modules/courier-benchmarks/target/benchmarks.jar
 * dev.courier.benchmarks.IdempotencyPipelineBenchmark [records] [runs]}
 */
public final class IdempotencyPipelineBenchmark {

  private static final int BATCH = 500;

  private IdempotencyPipelineBenchmark() {}

  public static void main(String[] args) throws Exception {
    int records = args.length > 0 ? Integer.parseInt(args[0]) : 20_000;
    int runs = args.length > 1 ? Integer.parseInt(args[1]) : 3;
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
      List<Measurement> rows = new ArrayList<>();
      rows.add(measure("raw consume + commit", runs, () -> rawConsume(kafka, topic, records)));
      rows.add(measure("raw INSERT ON CONFLICT, batched", runs, () -> rawInsert(db, records)));
      rows.add(
          measure(
              "courier store, single mode",
              runs,
              () -> courier(kafka, pool, topic, records, false)));
      rows.add(
          measure(
              "courier store, batch mode", runs, () -> courier(kafka, pool, topic, records, true)));
      double baseline = Math.min(rows.get(0).median(), rows.get(1).median());
      List<String> notes = new ArrayList<>();
      notes.add(
          String.format(
              Locale.ROOT,
              "%d records, 1 partition, %d measured runs after 1 warm-up",
              records,
              runs));
      notes.add(
          String.format(
              Locale.ROOT,
              "single mode / smaller baseline = %.2f",
              rows.get(2).median() / baseline));
      notes.add(
          String.format(
              Locale.ROOT,
              "batch mode / smaller baseline = %.2f (target >= 0.70)",
              rows.get(3).median() / baseline));
      BenchmarkReport.write(
          Path.of("target", "benchmarks"), "idempotency", "records/s", rows, notes);
    }
  }

  private static Measurement measure(String name, int runs, LongSupplier run) {
    run.getAsLong(); // warm-up
    List<Double> perSecond = new ArrayList<>();
    for (int i = 0; i < runs; i++) {
      long started = System.nanoTime();
      long count = run.getAsLong();
      perSecond.add(count / ((System.nanoTime() - started) / 1e9));
    }
    return new Measurement(name, perSecond);
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

  private static java.util.Map<String, Object> config(KafkaBroker kafka) {
    java.util.Map<String, Object> config =
        new java.util.HashMap<>(kafka.consumerConfig(UniqueNames.group("bench")));
    config.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, BATCH);
    return config;
  }

  private static long rawConsume(KafkaBroker kafka, String topic, int records) {
    long seen = 0;
    try (KafkaConsumer<byte[], byte[]> consumer =
        new KafkaConsumer<>(
            config(kafka), new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
      consumer.subscribe(List.of(topic));
      while (seen < records) {
        int n = consumer.poll(Duration.ofMillis(200)).count();
        if (n > 0) {
          seen += n;
          consumer.commitSync();
        }
      }
    }
    return seen;
  }

  private static long rawInsert(TestDatabase db, int records) {
    String consumer = UniqueNames.group("raw");
    try (Connection c = db.connection();
        PreparedStatement ps =
            c.prepareStatement("INSERT INTO raw_keys VALUES (?, ?) ON CONFLICT DO NOTHING")) {
      c.setAutoCommit(false);
      for (int i = 0; i < records; i++) {
        ps.setString(1, consumer);
        ps.setString(2, "op-" + i);
        ps.addBatch();
        if ((i + 1) % BATCH == 0) {
          ps.executeBatch();
          c.commit();
        }
      }
      ps.executeBatch();
      c.commit();
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
    return records;
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

  private static long courier(
      KafkaBroker kafka, DataSource pool, String topic, int records, boolean batch) {
    IdempotentHandler<byte[], byte[]> handler =
        IdempotentHandler.<byte[], byte[]>builder()
            .dataSource(pool)
            .consumerName(UniqueNames.group(batch ? "batch" : "single"))
            .meterRegistry(new SimpleMeterRegistry())
            .effect((c, r) -> {})
            .build();
    try (IdempotentConsumer<byte[], byte[]> consumer =
        IdempotentConsumer.builder(
                config(kafka), new ByteArrayDeserializer(), new ByteArrayDeserializer())
            .topics(List.of(topic))
            .handler(handler)
            .batchMode(batch)
            .meterRegistry(new SimpleMeterRegistry())
            .build()) {
      consumer.runUntil(p -> p.handled() >= records);
      return consumer.progress().handled();
    }
  }
}
