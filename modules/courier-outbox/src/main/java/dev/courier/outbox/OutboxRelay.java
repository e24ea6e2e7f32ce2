package dev.courier.outbox;

import dev.courier.core.CrashPoint;
import dev.courier.outbox.internal.EngineProperties;
import dev.courier.outbox.internal.RowRouter;
import dev.courier.outbox.internal.StartupChecks;
import io.debezium.embedded.Connect;
import io.debezium.engine.DebeziumEngine;
import io.debezium.engine.RecordChangeEvent;
import io.debezium.engine.format.ChangeEventFormat;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Metrics;
import java.io.IOException;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.connect.source.SourceRecord;
import org.postgresql.ds.PGSimpleDataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Tails the outbox table with Debezium's embedded engine (PostgreSQL connector, pgoutput, a
 * publication limited to the outbox and heartbeat tables, a named slot) and publishes each event
 * with an idempotent producer. Debezium's position advances only after Kafka acknowledged the whole
 * batch; positions are stored in a Kafka topic, so a restart resumes without loss. Runnable as its
 * own process: {@code java dev.courier.outbox.OutboxRelay key=value ...}.
 */
public final class OutboxRelay implements AutoCloseable {

  /** Reached with a batch in hand, before anything of it is sent to Kafka. */
  public static final CrashPoint BEFORE_KAFKA_SEND = CrashPoint.named("before-kafka-send");

  private static final Logger LOG = LoggerFactory.getLogger(OutboxRelay.class);

  private final OutboxRelayConfig config;
  private final KafkaProducer<byte[], byte[]> producer;
  private final RowRouter router;
  private final DebeziumEngine<RecordChangeEvent<SourceRecord>> engine;
  private final ExecutorService runner;
  private final OutboxMetrics metrics;
  private final CountDownLatch polling = new CountDownLatch(1);
  private final AtomicReference<Throwable> failure = new AtomicReference<>();
  private final CountDownLatch stopped = new CountDownLatch(1);

  private OutboxRelay(OutboxRelayConfig config, MeterRegistry registry, Clock clock) {
    this.config = config;
    String name = config.getString(OutboxRelayConfig.NAME);
    this.metrics = new OutboxMetrics(registry, name);
    Gauge.builder("courier.outbox.slot.retained.wal", this, OutboxRelay::retainedWalBytes)
        .tag("relay", name)
        .baseUnit("bytes")
        .description("WAL the replication slot keeps because the relay has not confirmed it yet.")
        .register(registry);
    this.producer =
        new KafkaProducer<>(
            producerConfig(config), new ByteArraySerializer(), new ByteArraySerializer());
    this.router = new RowRouter(config.prefix(), config.prefix() + "-cdc");
    this.engine =
        DebeziumEngine.create(ChangeEventFormat.of(Connect.class))
            .using(EngineProperties.of(config))
            .using(
                new DebeziumEngine.ConnectorCallback() {
                  @Override
                  public void pollingStarted() {
                    metrics.running.set(1);
                    polling.countDown();
                  }

                  @Override
                  public void pollingStopped() {
                    metrics.running.set(0);
                  }
                })
            .using(
                (success, message, error) -> {
                  metrics.running.set(0);
                  if (!success) {
                    failure.set(error != null ? error : new IllegalStateException(message));
                    LOG.error("outbox relay stopped: {}", message, error);
                  }
                  stopped.countDown();
                })
            .notifying(new RelayBatchHandler(producer, router, config, metrics, clock))
            .build();
    this.runner = Executors.newSingleThreadExecutor(r -> new Thread(r, "courier-outbox-relay"));
  }

  /**
   * Checks PostgreSQL (wal_level, replication rights), creates the outbox tables if needed, and
   * starts relaying.
   *
   * @throws org.apache.kafka.common.config.ConfigException naming the key of a bad setting
   */
  public static OutboxRelay start(Map<String, ?> settings) {
    return start(settings, Metrics.globalRegistry, Clock.systemUTC());
  }

  public static OutboxRelay start(Map<String, ?> settings, MeterRegistry registry, Clock clock) {
    OutboxRelayConfig config = new OutboxRelayConfig(settings);
    StartupChecks.verify(config);
    OutboxSchema.migrate(dataSource(config));
    OutboxRelay relay = new OutboxRelay(config, registry, clock);
    relay.runner.submit(relay.engine);
    return relay;
  }

  /**
   * Waits until the engine streams changes; writes committed before that point are not seen on the
   * very first start (the slot does not exist yet), so writers should start after it.
   */
  public boolean awaitStreaming(Duration timeout) throws InterruptedException {
    boolean started = polling.await(timeout.toMillis(), TimeUnit.MILLISECONDS);
    if (failure.get() != null) {
      throw new IllegalStateException(
          "outbox relay failed: " + failure.get().getMessage(), failure.get());
    }
    return started;
  }

  /** Whether the engine is streaming, and the error that stopped it, if any. */
  public boolean healthy() {
    return metrics.running.get() == 1 && failure.get() == null;
  }

  public Throwable failure() {
    return failure.get();
  }

  /** Bytes of WAL the slot holds back (the server's current position minus the confirmed one). */
  public long retainedWalBytes() {
    try (Connection c =
            DriverManager.getConnection(
                config.jdbcUrl(),
                config.getString(OutboxRelayConfig.DB_USER),
                config.password().value());
        PreparedStatement ps =
            c.prepareStatement(
                "SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), confirmed_flush_lsn)::bigint"
                    + " FROM pg_replication_slots WHERE slot_name = ?")) {
      ps.setString(1, config.getString(OutboxRelayConfig.SLOT));
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? rs.getLong(1) : 0;
      }
    } catch (SQLException e) {
      LOG.warn("cannot read slot lag: {}", e.toString());
      return -1;
    }
  }

  /** Stops after the batch in flight is published and acknowledged, then stores the position. */
  @Override
  public void close() {
    try {
      engine.close();
      stopped.await(60, TimeUnit.SECONDS);
    } catch (IOException e) {
      LOG.warn("engine did not close cleanly: {}", e.toString());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      runner.shutdown();
      producer.close(Duration.ofSeconds(30));
      router.close();
    }
  }

  /** Runs the relay until the process is stopped: {@code key=value} arguments are its settings. */
  public static void main(String[] args) throws InterruptedException {
    Map<String, String> settings = new HashMap<>();
    for (String arg : args) {
      int eq = arg.indexOf('=');
      if (eq < 1) {
        throw new IllegalArgumentException("argument '" + arg + "' is not key=value");
      }
      settings.put(arg.substring(0, eq), arg.substring(eq + 1));
    }
    OutboxRelay relay = start(settings);
    Runtime.getRuntime().addShutdownHook(new Thread(relay::close, "courier-outbox-relay-shutdown"));
    relay.awaitStreaming(Duration.ofMinutes(5));
    System.out.println("outbox relay streaming");
    relay.stopped.await();
    if (relay.failure() != null) {
      System.exit(1);
    }
  }

  private static Map<String, Object> producerConfig(OutboxRelayConfig config) {
    Map<String, Object> p = new HashMap<>();
    p.put(
        ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
        config.getString(OutboxRelayConfig.BOOTSTRAP_SERVERS));
    p.put(ProducerConfig.ACKS_CONFIG, "all");
    p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
    p.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, 5);
    p.put(ProducerConfig.LINGER_MS_CONFIG, 1);
    int delivery = config.getInt(OutboxRelayConfig.DELIVERY_TIMEOUT_MS);
    p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, delivery);
    p.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, Math.min(30_000, delivery - 1_000));
    p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, delivery);
    p.put(ProducerConfig.CLIENT_ID_CONFIG, config.getString(OutboxRelayConfig.NAME));
    return p;
  }

  private static PGSimpleDataSource dataSource(OutboxRelayConfig config) {
    PGSimpleDataSource ds = new PGSimpleDataSource();
    ds.setURL(config.jdbcUrl());
    ds.setUser(config.getString(OutboxRelayConfig.DB_USER));
    ds.setPassword(config.password().value());
    return ds;
  }
}
