package dev.courier.outbox;

import dev.courier.core.CrashPoint;
import dev.courier.core.ServiceHealth;
import dev.courier.core.internal.Traces;
import dev.courier.outbox.internal.DeferredProducer;
import dev.courier.outbox.internal.Outage;
import dev.courier.outbox.internal.OutboxMetrics;
import dev.courier.outbox.internal.RelayState;
import dev.courier.outbox.internal.RelaySupervisor;
import dev.courier.outbox.internal.RowRouter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Metrics;
import io.opentelemetry.api.OpenTelemetry;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Tails the outbox table with Debezium's embedded engine (PostgreSQL connector, pgoutput, a
 * publication limited to the outbox and heartbeat tables, a named slot) and publishes each event
 * with an idempotent producer. Debezium's position advances only after Kafka acknowledged the whole
 * batch; positions are stored in a Kafka topic, so a restart resumes without loss.
 *
 * <p>It runs as deployed services must: {@link #create(java.util.Map)} returns at once; while
 * PostgreSQL or Kafka is unreachable the relay waits, says why in {@link #health()} and logs each
 * change once; a lost PostgreSQL is reconnected within {@code
 * outbox.postgres.reconnect.interval.ms}. Only a wrong setting (bad value, wrong credentials, no
 * REPLICATION, {@code wal_level} not logical, a slot that is not the one the stored position came
 * from) or a row the policy says to stop at ends it: {@link #failure()} says which.
 */
public final class OutboxRelay implements AutoCloseable {

  /** Reached with a batch in hand, before anything of it is sent to Kafka. */
  public static final CrashPoint BEFORE_KAFKA_SEND = CrashPoint.named("before-kafka-send");

  private static final Logger LOG = LoggerFactory.getLogger(OutboxRelay.class);

  private final OutboxRelayConfig config;
  private final DeferredProducer producer;
  private final RowRouter router;
  private final RelayState state;
  private final RelaySupervisor supervisor;
  private final Thread thread;
  private final ScheduledExecutorService watcher;

  private OutboxRelay(
      OutboxRelayConfig config,
      DeferredProducer producer,
      RowRouter router,
      RelayState state,
      RelaySupervisor supervisor) {
    this.config = config;
    this.producer = producer;
    this.router = router;
    this.state = state;
    this.supervisor = supervisor;
    this.thread = new Thread(supervisor, "courier-outbox-relay");
    this.watcher =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "courier-outbox-health");
              t.setDaemon(true);
              return t;
            });
  }

  /**
   * Checks the settings and returns the relay running (it relays until {@link #close()}). Returns
   * at once: a relay that cannot reach PostgreSQL or Kafka yet waits for them in the background.
   *
   * @throws org.apache.kafka.common.config.ConfigException naming the key of a bad setting, when
   *     the settings or a reachable PostgreSQL or Kafka show it already
   */
  public static OutboxRelay create(Map<String, ?> settings) {
    return create(settings, Metrics.globalRegistry, Clock.systemUTC());
  }

  /** As {@link #create(Map)}, with the registry for its metrics and the clock of its ages. */
  public static OutboxRelay create(Map<String, ?> settings, MeterRegistry registry, Clock clock) {
    return create(settings, registry, clock, null);
  }

  /**
   * As {@link #create(Map, MeterRegistry, Clock)}, tracing with {@code openTelemetry}: an event
   * written with a trace context gets a {@code publish} span, its child, from the commit to Kafka's
   * acknowledgement, and carries that span's {@code traceparent}. Without one (null) the relay
   * starts no span and passes the writer's context on as it is.
   */
  public static OutboxRelay create(
      Map<String, ?> settings, MeterRegistry registry, Clock clock, OpenTelemetry openTelemetry) {
    OutboxRelayConfig config = new OutboxRelayConfig(settings);
    String name = config.getString(OutboxRelayConfig.RELAY_NAME);
    OutboxMetrics metrics = new OutboxMetrics(registry, name);
    Map<String, Object> producerConfig = producerConfig(config);
    DeferredProducer producer =
        new DeferredProducer(
            () ->
                new KafkaProducer<>(
                    producerConfig, new ByteArraySerializer(), new ByteArraySerializer()),
            config.clients());
    RowRouter router = new RowRouter(config.prefix(), config.cdcPrefix(), config.table());
    RelayState state = new RelayState(clock);
    OutboxRelay relay =
        new OutboxRelay(
            config,
            producer,
            router,
            state,
            new RelaySupervisor(
                config, producer, router, metrics, clock, state, Traces.of(openTelemetry)));
    metrics.relayGauges(relay, OutboxRelay::retainedWalBytes, r -> r.health().ready() ? 1 : 0);
    try {
      relay.supervisor.checkOnce();
    } catch (RuntimeException e) {
      relay.supervisor.release();
      relay.closeClients();
      throw e;
    }
    relay.thread.start();
    relay.watcher.scheduleWithFixedDelay(relay::logHealth, 0, 1, TimeUnit.SECONDS);
    return relay;
  }

  /** A scheduled task that throws is never run again: this one must not. */
  private void logHealth() {
    try {
      state.log(health());
    } catch (RuntimeException e) {
      LOG.warn("cannot evaluate the relay's health: {}", e.toString(), e);
    }
  }

  /**
   * Waits until the engine streams changes; writes committed before that point are not seen on the
   * very first start (the slot does not exist yet), so writers should start after it.
   *
   * @return false if it did not stream within the timeout
   * @throws IllegalStateException when the relay failed for good
   */
  public boolean awaitStreaming(Duration timeout) throws InterruptedException {
    boolean started = supervisor.awaitStreaming(timeout);
    if (failure() != null) {
      throw new IllegalStateException("outbox relay failed: " + failure().getMessage(), failure());
    }
    return started;
  }

  /**
   * Ready while it streams, is connected to PostgreSQL and Kafka acknowledges within {@code
   * outbox.health.ack.timeout.ms}; live unless it failed for good. The reason says why not.
   */
  public ServiceHealth health() {
    return supervisor.health();
  }

  /** Whether the relay is ready (see {@link #health()}). */
  public boolean healthy() {
    return health().ready();
  }

  /** What ended the relay for good: a ConfigException (a wrong setting) or a RelayFault. */
  public Throwable failure() {
    return supervisor.failure();
  }

  /** Bytes of WAL the slot holds back (the server's current position minus the confirmed one). */
  public long retainedWalBytes() {
    try (Connection c = supervisor.postgres().connect();
        PreparedStatement ps =
            c.prepareStatement(
                "SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), confirmed_flush_lsn)::bigint"
                    + " FROM pg_replication_slots WHERE slot_name = ?")) {
      ps.setString(1, config.getString(OutboxRelayConfig.SLOT_NAME));
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? rs.getLong(1) : 0;
      }
    } catch (SQLException | Outage | RuntimeException e) {
      LOG.debug("cannot read slot lag: {}", e.toString());
      return -1;
    }
  }

  /** Stops after the batch in flight is published and acknowledged, then stores the position. */
  @Override
  public void close() {
    supervisor.close();
    try {
      thread.join(Duration.ofSeconds(30).toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    watcher.shutdownNow();
    closeClients();
  }

  private void closeClients() {
    producer.close(Duration.ofSeconds(30));
  }

  private static Map<String, Object> producerConfig(OutboxRelayConfig config) {
    Map<String, Object> p = config.clients().producer();
    p.put(ProducerConfig.ACKS_CONFIG, "all");
    p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
    p.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, 5);
    p.putIfAbsent(ProducerConfig.LINGER_MS_CONFIG, 1);
    // The relay sends a whole change batch at once (up to outbox.max.batch.size records, hundreds
    // of KiB) and waits for all of it: at Kafka's 16 KiB a batch took dozens of produce requests,
    // and insert-to-consumed ran 10% slower (BENCHMARKS.md, levers).
    p.putIfAbsent(ProducerConfig.BATCH_SIZE_CONFIG, 512 * 1024);
    int delivery = config.getInt(OutboxRelayConfig.DELIVERY_TIMEOUT_MS);
    p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, delivery);
    p.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, Math.min(30_000, delivery - 1_000));
    // A send that blocks (no metadata, a full buffer) must not outlast half a lease: the relay
    // checks its lease before each record, and a record handed to the producer after the lease
    // lapsed could land after a newer leader's.
    p.put(
        ProducerConfig.MAX_BLOCK_MS_CONFIG,
        Math.min(delivery, config.getLong(OutboxRelayConfig.LEADER_LEASE_MS) / 2));
    p.putIfAbsent(ProducerConfig.CLIENT_ID_CONFIG, config.getString(OutboxRelayConfig.RELAY_NAME));
    return p;
  }
}
