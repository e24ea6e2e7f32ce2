package dev.courier.benchmarks;

import dev.courier.outbox.OutboxRelayConfig;
import dev.courier.outbox.internal.EngineProperties;
import dev.courier.testkit.KafkaBroker;
import dev.courier.testkit.TestDatabase;
import dev.courier.testkit.UniqueNames;
import dev.courier.testkit.internal.PgOutputDecoder;
import io.debezium.embedded.Connect;
import io.debezium.engine.DebeziumEngine;
import io.debezium.engine.RecordChangeEvent;
import io.debezium.engine.format.ChangeEventFormat;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.LongConsumer;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.source.SourceRecord;
import org.postgresql.PGProperty;
import org.postgresql.replication.LogSequenceNumber;
import org.postgresql.replication.PGReplicationStream;

/**
 * The outbox's baselines, each on the same rows the relay gets ({@link OutboxWrites}), each
 * returning the seconds from the first insert to the last event seen:
 *
 * <ul>
 *   <li>(a) the raw pgoutput stream through pgjdbc's replication API, decoded and nothing else: the
 *       capture ceiling of this server;
 *   <li>(b) Debezium's embedded engine with a no-op batch handler;
 *   <li>(c) Debezium's engine with the outbox EventRouter and an asynchronous batching producer,
 *       acknowledged per batch, read back by a consumer: what Debezium Server's Kafka sink does;
 *   <li>(d) raw batched inserts of the same rows;
 *   <li>(e) a raw idempotent producer of the same payloads.
 * </ul>
 */
final class OutboxBaselines {

  private static final byte[] PAYLOAD = OutboxWrites.PAYLOAD_JSON.getBytes(StandardCharsets.UTF_8);
  private static final Duration START_TIMEOUT = Duration.ofSeconds(60);

  private OutboxBaselines() {}

  /** (d) The same rows inserted 500 a transaction into a table like the outbox, and kept. */
  static double rawInserts(TestDatabase db, int events) throws Exception {
    try (Connection c = db.connection();
        Statement s = c.createStatement()) {
      s.execute("CREATE TABLE IF NOT EXISTS raw_outbox (LIKE courier_outbox INCLUDING ALL)");
      s.execute("TRUNCATE raw_outbox");
    }
    long started = System.nanoTime();
    try (Connection c = db.connection();
        PreparedStatement ps =
            c.prepareStatement(
                "INSERT INTO raw_outbox (id, aggregatetype, aggregateid, type, payload, content_type)"
                    + " VALUES (?, 'account', ?, 'CreditRequested', ?, 'application/json')")) {
      RawInserts.batched(
          c,
          ps,
          events,
          OutboxWrites.BATCH,
          (row, i) -> {
            row.setObject(1, UUID.randomUUID());
            row.setString(2, "acc-" + (i % 100));
            row.setBytes(3, PAYLOAD);
          });
    }
    return (System.nanoTime() - started) / 1e9;
  }

  /** (e) The same payloads through a plain idempotent producer, flushed. */
  static double rawProducer(KafkaBroker kafka, int events) {
    String topic = UniqueNames.topic("bench-raw");
    kafka.createTopic(topic, 1);
    long started = System.nanoTime();
    try (KafkaProducer<byte[], byte[]> producer =
        new KafkaProducer<>(
            kafka.producerConfig(), new ByteArraySerializer(), new ByteArraySerializer())) {
      for (int i = 0; i < events; i++) {
        producer.send(
            new ProducerRecord<>(
                topic, ("acc-" + (i % 100)).getBytes(StandardCharsets.UTF_8), PAYLOAD));
      }
      producer.flush();
    }
    return (System.nanoTime() - started) / 1e9;
  }

  /**
   * (a) The slot's pgoutput messages through pgjdbc's replication stream, on a publication of the
   * outbox table like the relay's, decoded into rows; the position is confirmed as it goes. {@code
   * commitToDecode} gets, per commit, the milliseconds from the commit to its decoding.
   */
  static double rawPgoutput(
      TestDatabase db, int events, OutboxWrites.Pacing pacing, LongConsumer commitToDecode)
      throws Exception {
    String name = "bench_raw_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
    try (Connection c = db.connection();
        Statement s = c.createStatement()) {
      s.execute("CREATE PUBLICATION " + name + " FOR TABLE " + EngineProperties.OUTBOX_TABLE);
    }
    Properties props = new Properties();
    PGProperty.USER.set(props, db.username());
    PGProperty.PASSWORD.set(props, db.password());
    PGProperty.REPLICATION.set(props, "database");
    PGProperty.ASSUME_MIN_SERVER_VERSION.set(props, "10");
    PGProperty.PREFER_QUERY_MODE.set(props, "simple");
    ExecutorService reader = Executors.newSingleThreadExecutor();
    try (Connection replication = DriverManager.getConnection(db.jdbcUrl(), props)) {
      PGReplicationStream stream = PgoutputSlots.stream(replication, name, name);
      AtomicLong seen = new AtomicLong();
      Future<?> reading =
          reader.submit(
              () -> {
                PgOutputDecoder decoder = new PgOutputDecoder();
                while (seen.get() < events) {
                  ByteBuffer message = stream.read();
                  byte[] bytes = new byte[message.remaining()];
                  message.get(bytes);
                  long committed = PgOutputDecoder.commitMillis(bytes);
                  if (committed >= 0) {
                    commitToDecode.accept(System.currentTimeMillis() - committed);
                  } else if (decoder
                      .decode(bytes)
                      .filter(change -> change.operation().equals("INSERT"))
                      .isPresent()) {
                    seen.incrementAndGet();
                  }
                  LogSequenceNumber at = stream.getLastReceiveLSN();
                  stream.setAppliedLSN(at);
                  stream.setFlushedLSN(at);
                }
                return null;
              });
      long started = System.nanoTime();
      pacing.write(db, events);
      reading.get(10, TimeUnit.MINUTES);
      double seconds = (System.nanoTime() - started) / 1e9;
      stream.close();
      return seconds;
    } finally {
      reader.shutdownNow();
      PgoutputSlots.dropSlot(db, name, name);
    }
  }

  /** (b) Debezium's engine on the relay's settings and a slot of its own, handler a no-op. */
  static double debeziumAlone(KafkaBroker kafka, TestDatabase db, int events) throws Exception {
    Map<String, String> settings = OutboxPipelineBenchmark.relaySettings(kafka, db);
    OutboxRelayConfig config = new OutboxRelayConfig(settings);
    AtomicLong seen = new AtomicLong();
    CountDownLatch done = new CountDownLatch(1);
    try {
      return runEngine(
          EngineProperties.of(config),
          (records, committer) -> {
            for (RecordChangeEvent<SourceRecord> r : records) {
              // Heartbeats (a struct without "op") come once a run outlasts heartbeat.interval.ms.
              if (r.record().value() instanceof Struct s
                  && s.schema().field("op") != null
                  && "c".equals(s.getString("op"))
                  && seen.incrementAndGet() == events) {
                done.countDown();
              }
              committer.markProcessed(r);
            }
            committer.markBatchFinished();
          },
          engine -> {
            OutboxWrites.writeEvents(db.dataSource(), events);
            long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(10);
            while (!done.await(100, TimeUnit.MILLISECONDS)) {
              engine.check();
              if (System.nanoTime() > deadline) {
                throw new IllegalStateException(seen.get() + " of " + events + " events in 10 min");
              }
            }
          });
    } finally {
      PgoutputSlots.dropSlot(db, settings);
    }
  }

  /**
   * (c) Debezium's engine with the EventRouter SMT (the outbox routing Courier does, in Debezium's
   * own configuration) and a batch handler that sends every routed record without waiting, waits
   * for all of a batch's acknowledgements, then marks the batch processed: Debezium Server's Kafka
   * sink. Measured to the last event consumed, as Courier is.
   */
  static double debeziumToKafka(KafkaBroker kafka, TestDatabase db, int events) throws Exception {
    Map<String, String> settings = OutboxPipelineBenchmark.relaySettings(kafka, db);
    OutboxRelayConfig config = new OutboxRelayConfig(settings);
    String topic = config.prefix() + ".account";
    kafka.createTopic(topic, 1);
    Properties props = EngineProperties.of(config);
    props.setProperty("transforms", "outbox");
    props.setProperty("transforms.outbox.type", "io.debezium.transforms.outbox.EventRouter");
    props.setProperty("transforms.outbox.route.by.field", "aggregatetype");
    props.setProperty(
        "transforms.outbox.route.topic.replacement", config.prefix() + ".${routedByValue}");
    props.setProperty("transforms.outbox.table.field.event.key", "aggregateid");
    props.setProperty("transforms.outbox.table.op.invalid.behavior", "warn");
    Map<String, Object> pc = kafka.producerConfig();
    pc.put(ProducerConfig.ACKS_CONFIG, "all");
    pc.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
    AtomicReference<Exception> failed = new AtomicReference<>();
    try (KafkaProducer<byte[], byte[]> producer =
            new KafkaProducer<>(pc, new ByteArraySerializer(), new ByteArraySerializer());
        KafkaConsumer<byte[], byte[]> consumer =
            new KafkaConsumer<>(
                kafka.consumerConfig(UniqueNames.group("bench-dbz")),
                new ByteArrayDeserializer(),
                new ByteArrayDeserializer())) {
      consumer.subscribe(List.of(topic));
      consumer.poll(Duration.ofMillis(100));
      return runEngine(
          props,
          (records, committer) -> {
            List<Future<?>> acks = new ArrayList<>(records.size());
            for (RecordChangeEvent<SourceRecord> r : records) {
              SourceRecord routed = r.record();
              if (!routed.topic().equals(topic)) {
                continue; // a heartbeat
              }
              Object value = routed.value();
              byte[] payload =
                  value instanceof ByteBuffer b ? bytes(b) : value instanceof byte[] a ? a : null;
              acks.add(
                  producer.send(
                      new ProducerRecord<>(
                          topic,
                          routed.key().toString().getBytes(StandardCharsets.UTF_8),
                          payload)));
            }
            try {
              for (Future<?> ack : acks) {
                ack.get();
              }
            } catch (Exception e) {
              failed.set(e);
              throw new IllegalStateException(e);
            }
            for (RecordChangeEvent<SourceRecord> r : records) {
              committer.markProcessed(r);
            }
            committer.markBatchFinished();
          },
          engine -> {
            OutboxWrites.writeEvents(db.dataSource(), events);
            long received = 0;
            while (received < events && failed.get() == null) {
              engine.check();
              received += consumer.poll(Duration.ofMillis(100)).count();
            }
          });
    } finally {
      PgoutputSlots.dropSlot(db, settings);
    }
  }

  /** What a baseline does once its engine streams: the writes and the wait for the last event. */
  @FunctionalInterface
  interface Workload {
    void run(Engine engine) throws Exception;
  }

  /**
   * The engine as a workload waits on it: an engine that stopped on its own (its logs are off, as
   * the relay's are) ends the wait at once with Debezium's own reason, not after a timeout.
   */
  static final class Engine implements DebeziumEngine.CompletionCallback {
    private volatile String ended;

    @Override
    public void handle(boolean success, String message, Throwable error) {
      ended = (success ? "" : "failed: ") + message + (error == null ? "" : ": " + error);
    }

    boolean ended() {
      return ended != null;
    }

    void check() {
      if (ended != null) {
        throw new IllegalStateException("Debezium's engine stopped mid-run: " + ended);
      }
    }
  }

  /** Starts an engine, runs the workload once it streams, and returns the workload's seconds. */
  private static double runEngine(
      Properties props,
      DebeziumEngine.ChangeConsumer<RecordChangeEvent<SourceRecord>> handler,
      Workload workload)
      throws Exception {
    CountDownLatch streaming = new CountDownLatch(1);
    Engine watch = new Engine();
    DebeziumEngine<RecordChangeEvent<SourceRecord>> engine =
        DebeziumEngine.create(ChangeEventFormat.of(Connect.class))
            .using(props)
            .using(watch)
            .using(
                new DebeziumEngine.ConnectorCallback() {
                  @Override
                  public void pollingStarted() {
                    streaming.countDown();
                  }
                })
            .notifying(handler)
            .build();
    ExecutorService runner = Executors.newSingleThreadExecutor();
    try {
      runner.submit(engine);
      if (!streaming.await(START_TIMEOUT.toSeconds(), TimeUnit.SECONDS)) {
        watch.check();
        throw new IllegalStateException("the engine did not start streaming in " + START_TIMEOUT);
      }
      long started = System.nanoTime();
      workload.run(watch);
      return (System.nanoTime() - started) / 1e9;
    } finally {
      if (!watch.ended()) {
        engine.close();
      }
      runner.shutdown();
      runner.awaitTermination(60, TimeUnit.SECONDS);
    }
  }

  private static byte[] bytes(ByteBuffer buffer) {
    byte[] bytes = new byte[buffer.remaining()];
    buffer.duplicate().get(bytes);
    return bytes;
  }
}
