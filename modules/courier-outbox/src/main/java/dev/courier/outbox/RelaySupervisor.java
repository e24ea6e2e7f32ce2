package dev.courier.outbox;

import dev.courier.core.Failures;
import dev.courier.core.ServiceHealth;
import dev.courier.outbox.internal.EngineProperties;
import dev.courier.outbox.internal.FencedOffsetStore;
import dev.courier.outbox.internal.KafkaChecks;
import dev.courier.outbox.internal.Leadership;
import dev.courier.outbox.internal.LeadershipLost;
import dev.courier.outbox.internal.Outage;
import dev.courier.outbox.internal.PostgresAccess;
import dev.courier.outbox.internal.Publication;
import dev.courier.outbox.internal.RowRouter;
import dev.courier.outbox.internal.SlotIdentity;
import dev.courier.outbox.internal.StartPhases;
import dev.courier.outbox.internal.StartupChecks;
import dev.courier.outbox.internal.StoredPosition;
import io.debezium.embedded.Connect;
import io.debezium.engine.DebeziumEngine;
import io.debezium.engine.RecordChangeEvent;
import io.debezium.engine.format.ChangeEventFormat;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.time.Clock;
import java.time.Duration;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.connect.source.SourceRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps the relay streaming: waits out PostgreSQL and Kafka outages at start (capped backoff,
 * nothing but a wrong setting ends it), waits as a standby while another replica leads the slot
 * ({@link Leadership}), checks the slot against the stored position, runs Debezium's engine, and
 * starts a new engine when one stops for a reason that waiting can fix. A wrong setting ends it
 * with a {@link ConfigException}; a row the policy says to stop at ends it with a {@link
 * RelayFault}.
 */
final class RelaySupervisor implements Runnable {

  private static final Logger LOG = LoggerFactory.getLogger(RelaySupervisor.class);
  private static final Duration FIRST_BACKOFF = Duration.ofMillis(250);

  private final OutboxRelayConfig config;
  private final PostgresAccess postgres;
  private final Producer<byte[], byte[]> producer;
  private final RowRouter router;
  private final OutboxMetrics metrics;
  private final Clock clock;
  private final RelayState state;
  private final RelayBatchHandler handler;
  private final Leadership leadership;

  /** The id under which this relay's engines find its leadership to fence their positions. */
  private final String offsetFence;

  private final ScheduledExecutorService keeper =
      Executors.newSingleThreadScheduledExecutor(
          r -> {
            Thread t = new Thread(r, "courier-outbox-leadership");
            t.setDaemon(true);
            return t;
          });
  private final CountDownLatch closing = new CountDownLatch(1);
  private final CountDownLatch streamedOnce = new CountDownLatch(1);
  private final AtomicReference<Throwable> failure = new AtomicReference<>();
  private final ExecutorService engines =
      Executors.newSingleThreadExecutor(r -> new Thread(r, "courier-outbox-engine"));
  private final ExecutorService checks =
      Executors.newSingleThreadExecutor(
          r -> {
            Thread t = new Thread(r, "courier-outbox-checks");
            t.setDaemon(true);
            return t;
          });
  private final ObjectName streamingMetrics;
  private volatile DebeziumEngine<RecordChangeEvent<SourceRecord>> engine;
  private volatile CountDownLatch engineStopped;
  private volatile boolean streaming;

  /** This replica leads and renews its lease. */
  private volatile boolean leading;

  /** When this replica, as a standby, won the leadership; 0 once it streams. */
  private volatile long wonAtNanos;

  /** The checks passed just now on the caller's thread: the first round need not repeat them. */
  private volatile boolean prepared;

  /** This replica leads and checked the slot against the stored position on the caller's thread. */
  private volatile boolean positioned;

  /** The start under way, from its first check to its first batch relayed. */
  private volatile StartPhases start = StartPhases.begin();

  RelaySupervisor(
      OutboxRelayConfig config,
      Producer<byte[], byte[]> producer,
      RowRouter router,
      OutboxMetrics metrics,
      Clock clock,
      RelayState state) {
    this.config = config;
    this.postgres = new PostgresAccess(config);
    this.producer = producer;
    this.router = router;
    this.metrics = metrics;
    this.clock = clock;
    this.state = state;
    this.leadership = new Leadership(config, postgres);
    this.offsetFence = FencedOffsetStore.register(leadership::valid);
    this.handler = new RelayBatchHandler(producer, router, config, metrics, clock, leadership);
    long lease = config.getLong(OutboxRelayConfig.LEADER_LEASE_MS);
    long renewEvery = Math.min(config.getInt(OutboxRelayConfig.LEADER_POLL_MS), lease / 5);
    keeper.scheduleWithFixedDelay(this::renew, renewEvery, renewEvery, TimeUnit.MILLISECONDS);
    try {
      this.streamingMetrics =
          new ObjectName(
              "debezium.postgres:type=connector-metrics,context=streaming,server="
                  + config.cdcPrefix());
    } catch (javax.management.MalformedObjectNameException e) {
      throw new ConfigException(OutboxRelayConfig.TOPIC_PREFIX, config.prefix(), e.getMessage());
    }
  }

  PostgresAccess postgres() {
    return postgres;
  }

  /**
   * The first round of checks, on the caller's thread: a wrong setting fails {@code start} at once.
   * An outage is left to {@link #run()}.
   */
  void checkOnce() {
    try {
      checkSetup();
      prepared = true;
      if (leadership.tryAcquire()) {
        lead();
        start.mark("leadership");
        checkPosition();
        positioned = true;
      }
    } catch (Outage e) {
      state.waiting("WAITING", e.getMessage());
    }
  }

  @Override
  public void run() {
    Duration backoff = FIRST_BACKOFF;
    while (!closed()) {
      try {
        if (!prepared) {
          start = StartPhases.begin();
          checkSetup();
        }
        prepared = false;
        if (!positioned) {
          if (!leadership.tryAcquire()) {
            awaitLeadership();
            if (closed()) {
              return;
            }
            // A standby's start is its takeover (courier_outbox_leader_takeover_seconds): what
            // went before was waiting for the leader, not starting.
            start = StartPhases.begin();
          }
          lead();
          start.mark("leadership");
          checkPosition();
        }
        positioned = false;
        leadership.takeSlot(Duration.ofSeconds(10));
        start.mark("slot");
        handler.reportStart(start);
        runEngine();
        if (closed()) {
          return;
        }
        if (leading) {
          metrics.engineRestarts.increment();
        }
        backoff = FIRST_BACKOFF;
        continue;
      } catch (LeadershipLost e) {
        stepDown(e.getMessage());
        continue;
      } catch (Outage e) {
        state.waiting("WAITING", e.getMessage());
      } catch (ConfigException | RelayFault e) {
        fail(e);
        release(); // a relay that failed for good must not keep its standbys waiting
        return;
      } catch (RuntimeException e) {
        state.waiting(
            "RECOVERING", "the relay stopped on an error it retries: " + Failures.describe(e));
        LOG.warn("relay error; trying again", e);
      }
      pause(backoff);
      long max = config.getLong(OutboxRelayConfig.STARTUP_BACKOFF_MAX_MS);
      backoff = Duration.ofMillis(Math.min(max, backoff.toMillis() * 2));
    }
  }

  /** The settings, PostgreSQL and Kafka as the relay needs them, checked side by side. */
  private void checkSetup() throws Outage {
    checking("checking PostgreSQL at " + postgres.where());
    // Kafka is checked (and the stored position read) while PostgreSQL is: a restart pays for the
    // slower of the two, not for both.
    CompletableFuture<Void> kafka =
        CompletableFuture.runAsync(
            () -> {
              try {
                KafkaChecks.verify(config);
              } catch (Outage e) {
                throw new CompletionException(e);
              }
            },
            checks);
    try {
      StartupChecks.verify(config, postgres);
      OutboxSchema.migrate(postgres.dataSource(), config.shards());
    } catch (Outage | RuntimeException e) {
      kafka.cancel(true);
      throw e;
    }
    checking("checking Kafka at " + config.clients().bootstrapServersValue());
    try {
      kafka.join();
    } catch (CompletionException e) {
      if (e.getCause() instanceof Outage outage) {
        throw outage;
      }
      if (e.getCause() instanceof RuntimeException r) {
        throw r;
      }
      throw e;
    }
    start.mark("checks");
  }

  /**
   * The slot against the position stored in Kafka, read only now that this replica leads: a former
   * leader may have moved it until a moment ago.
   */
  private void checkPosition() throws Outage {
    Publication.narrow(config, postgres);
    OptionalLong stored = StoredPosition.read(config);
    start.mark("stored position");
    SlotIdentity.Verdict slot = SlotIdentity.check(config, postgres, stored);
    if (slot.gap()) {
      if (config.slotGapPolicy() == SlotGapPolicy.FAIL) {
        throw new ConfigException(
            OutboxRelayConfig.SLOT_GAP_POLICY,
            config.slotGapPolicy().value(),
            slot.description()
                + ". The relay will not follow the slot silently; set "
                + OutboxRelayConfig.SLOT_GAP_POLICY
                + "=accept to go on from the slot's position, knowing those events are lost");
      }
      metrics.slotGaps.increment();
      LOG.warn(
          "accepting a gap ({}={}): {}",
          OutboxRelayConfig.SLOT_GAP_POLICY,
          "accept",
          slot.description());
    } else {
      LOG.info("{}", slot.description());
    }
  }

  /**
   * Waits as a standby (live, not ready, the leader named) and asks for the leadership every {@code
   * outbox.leader.poll.interval.ms}: a killed leader's lock is free at once, a frozen one's when
   * PostgreSQL ends its session.
   */
  private void awaitLeadership() throws Outage {
    leading = false;
    metrics.leader.set(0);
    long poll = config.getInt(OutboxRelayConfig.LEADER_POLL_MS);
    long describedAt = 0;
    while (!closed()) {
      if (System.nanoTime() - describedAt > TimeUnit.SECONDS.toNanos(10) || describedAt == 0) {
        state.waiting(
            "STANDBY",
            "standby: "
                + leadership.leader()
                + " leads slot "
                + config.getString(OutboxRelayConfig.SLOT)
                + "; this relay takes over when it stops");
        describedAt = System.nanoTime();
      }
      pause(Duration.ofMillis(poll));
      if (!closed() && leadership.tryAcquire()) {
        wonAtNanos = System.nanoTime();
        metrics.takeovers.increment();
        return;
      }
    }
  }

  /** Renews the lease; a leader that finds the lock another's stops streaming at once. */
  private void renew() {
    if (!leading || closed()) {
      return;
    }
    if (leadership.renew() == Leadership.Renewal.TAKEN) {
      stepDown(
          "lost the leadership of slot "
              + config.getString(OutboxRelayConfig.SLOT)
              + " (its lease lapsed; "
              + leadership.leader()
              + " leads now)");
      DebeziumEngine<RecordChangeEvent<SourceRecord>> e = engine;
      if (e != null) {
        Thread stop = new Thread(() -> closeQuietly(e), "courier-outbox-step-down");
        stop.setDaemon(true);
        stop.start();
      }
    }
  }

  private void lead() {
    leading = true;
    metrics.leader.set(1);
  }

  private void stepDown(String reason) {
    if (leading) {
      LOG.warn("{}", reason);
    }
    leading = false;
    metrics.leader.set(0);
    state.waiting("STANDBY", reason);
  }

  private static void closeQuietly(DebeziumEngine<RecordChangeEvent<SourceRecord>> e) {
    try {
      e.close();
    } catch (IOException | RuntimeException ex) {
      LOG.debug("engine close: {}", ex.toString());
    }
  }

  /** Says what is being checked, unless an outage is being waited out: its reason stays. */
  private void checking(String what) {
    if (!state.current().status().equals("WAITING")
        || state.current().reason().startsWith("checking")) {
      state.waiting("WAITING", what);
    }
  }

  /** Runs one engine until it stops; returns normally when it stopped for a retriable reason. */
  private void runEngine() throws Outage {
    CountDownLatch stopped = new CountDownLatch(1);
    AtomicReference<Throwable> error = new AtomicReference<>();
    AtomicReference<String> message = new AtomicReference<>();
    state.waiting(
        "STARTING", "starting the CDC engine on slot " + config.getString(OutboxRelayConfig.SLOT));
    engine =
        DebeziumEngine.create(ChangeEventFormat.of(Connect.class))
            .using(EngineProperties.of(config, offsetFence))
            .using(
                new DebeziumEngine.ConnectorCallback() {
                  @Override
                  public void pollingStarted() {
                    long won = wonAtNanos;
                    if (won != 0) {
                      long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - won);
                      metrics.takeover.record(Duration.ofMillis(ms));
                      LOG.info(
                          "took over slot {} in {} ms",
                          config.getString(OutboxRelayConfig.SLOT),
                          ms);
                      wonAtNanos = 0;
                    }
                    start.mark("engine");
                    streaming = true;
                    metrics.running.set(1);
                    state.streaming(
                        "streaming from slot " + config.getString(OutboxRelayConfig.SLOT));
                    streamedOnce.countDown();
                  }

                  @Override
                  public void pollingStopped() {
                    streaming = false;
                    metrics.running.set(0);
                  }
                })
            .using(
                (success, msg, err) -> {
                  streaming = false;
                  metrics.running.set(0);
                  message.set(msg);
                  error.set(err);
                  stopped.countDown();
                })
            .notifying(handler)
            .build();
    engineStopped = stopped;
    engines.submit(engine);
    awaitQuietly(stopped);
    Throwable err = error.get();
    if (closed() || err == null) {
      return;
    }
    LeadershipLost lost = find(err, LeadershipLost.class);
    if (lost != null) {
      throw lost;
    }
    RelayFault fault = find(err, RelayFault.class);
    if (fault != null) {
      throw fault;
    }
    // Anything else is checked again before the next engine: an outage (PostgreSQL lost during
    // start, say) then waits, and a wrong setting fails there, naming its key.
    throw new Outage(
        "the CDC engine stopped: "
            + (message.get() != null ? message.get() : Failures.describe(err)),
        err);
  }

  private static <T extends Throwable> T find(Throwable e, Class<T> type) {
    for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (type.isInstance(t)) {
        return type.cast(t);
      }
    }
    return null;
  }

  /** The health the relay reports: the supervisor's state, sharpened while it streams. */
  ServiceHealth health() {
    ServiceHealth base = state.current();
    if (!base.status().equals("STREAMING")) {
      return base;
    }
    if (!connectedToPostgres()) {
      return ServiceHealth.waiting(
          "RECOVERING",
          "lost the connection to PostgreSQL at "
              + postgres.where()
              + "; streaming again as soon as it answers (every "
              + config.getInt(OutboxRelayConfig.POSTGRES_RETRY_MS)
              + " ms)",
          base.since());
    }
    Duration waiting = handler.waitingForKafka();
    long bound = config.getLong(OutboxRelayConfig.ACK_TIMEOUT_MS);
    if (waiting.toMillis() > bound) {
      String last = handler.lastSendFailure();
      return ServiceHealth.waiting(
          "DEGRADED",
          "Kafka has acknowledged nothing for over "
              + bound / 1000
              + " s ("
              + OutboxRelayConfig.ACK_TIMEOUT_MS
              + "); the relay keeps sending"
              + (last == null ? "" : "; last: " + last),
          base.since());
    }
    return base;
  }

  /** Debezium's own view: its streaming metrics say whether the replication connection is up. */
  private boolean connectedToPostgres() {
    if (!streaming) {
      return false;
    }
    try {
      MBeanServer server = ManagementFactory.getPlatformMBeanServer();
      Set<ObjectName> names = server.queryNames(streamingMetrics, null);
      if (names.isEmpty()) {
        return false;
      }
      return Boolean.TRUE.equals(server.getAttribute(names.iterator().next(), "Connected"));
    } catch (javax.management.JMException e) {
      return true; // no metrics is no evidence of a lost connection
    }
  }

  boolean awaitStreaming(Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (System.nanoTime() < deadline) {
      if (failure.get() != null) {
        return false;
      }
      if (streamedOnce.await(100, TimeUnit.MILLISECONDS) && streaming) {
        return true;
      }
    }
    return streaming;
  }

  Throwable failure() {
    return failure.get();
  }

  private void fail(Throwable e) {
    failure.set(e);
    state.failed(e.getMessage());
  }

  private boolean closed() {
    return closing.getCount() == 0;
  }

  private void pause(Duration d) {
    try {
      closing.await(d.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static void awaitQuietly(CountDownLatch latch) {
    try {
      latch.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** Stops the engine after the batch in flight, which stores its position. */
  void close() {
    closing.countDown();
    if (failure.get() == null) {
      state.stopping();
    }
    DebeziumEngine<RecordChangeEvent<SourceRecord>> e = engine;
    if (e != null) {
      try {
        e.close();
        CountDownLatch stopped = engineStopped;
        if (stopped != null) {
          stopped.await(60, TimeUnit.SECONDS);
        }
      } catch (IOException | IllegalStateException ex) {
        // An engine that stopped on its own is already closed.
        LOG.debug("engine close: {}", ex.toString());
      } catch (InterruptedException ex) {
        Thread.currentThread().interrupt();
      }
    }
    // Only now, with the batch in flight done and its position stored, may a standby take over.
    release();
  }

  /** Gives up the leadership and the threads; for close, and for a relay that never started. */
  void release() {
    keeper.shutdownNow();
    leadership.close();
    FencedOffsetStore.unregister(offsetFence);
    leading = false;
    metrics.leader.set(0);
    engines.shutdown();
    checks.shutdownNow();
  }

  RelayBatchHandler handler() {
    return handler;
  }
}
