package dev.courier.outbox.internal;

import dev.courier.core.ServiceHealth;
import dev.courier.core.internal.Failures;
import dev.courier.core.internal.Traces;
import dev.courier.outbox.OutboxRelayConfig;
import dev.courier.outbox.RelayFault;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.common.config.ConfigException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps the relay streaming, as a loop of starts: check the setup (waiting out PostgreSQL and Kafka
 * outages with a capped backoff), lead the slot or wait as a standby ({@link LeaderTerm}), check
 * the slot against the stored position ({@link SlotGapDecider}), take the slot and run Debezium's
 * engine ({@link EngineRunner}) until it stops, and start again when waiting can fix why. A wrong
 * setting ends it with a {@link ConfigException}; a row the policy says to stop at with a {@link
 * RelayFault}.
 */
public final class RelaySupervisor implements Runnable {

  private static final Logger LOG = LoggerFactory.getLogger(RelaySupervisor.class);
  private static final Duration FIRST_BACKOFF = Duration.ofMillis(250);

  private final OutboxRelayConfig config;
  private final DeferredProducer producer;
  private final PostgresAccess postgres;
  private final OutboxMetrics metrics;
  private final RelayState state;
  private final RelayBatchHandler handler;
  private final LeaderTerm term;
  private final SlotHandover handover;
  private final SetupChecks checks;
  private final EngineRunner engine;
  private final RelayHealth health;
  private final StandbyPreload preload = new StandbyPreload();

  /** The id under which this relay's engines find its leadership to fence their positions. */
  private final String offsetFence;

  private final CountDownLatch closing = new CountDownLatch(1);
  private final CountDownLatch streamedOnce = new CountDownLatch(1);
  private final AtomicReference<Throwable> failure = new AtomicReference<>();
  private volatile boolean streaming;

  /** The checks passed just now on the caller's thread: the first round need not repeat them. */
  private volatile boolean prepared;

  /** This replica leads and checked the slot against the stored position on the caller's thread. */
  private volatile boolean positioned;

  /** The server the engine reads from, as last checked; stored with every position. */
  private volatile ServerIdentity server;

  /** The start just checked the position: the engine's first task start need not again. */
  private volatile boolean positionChecked;

  /** The start under way, from its first check to its first batch relayed. */
  private volatile StartPhases start = StartPhases.begin();

  public RelaySupervisor(
      OutboxRelayConfig config,
      DeferredProducer producer,
      RowRouter router,
      OutboxMetrics metrics,
      Clock clock,
      RelayState state,
      Traces traces) {
    this.config = config;
    this.producer = producer;
    this.postgres = new PostgresAccess(config);
    this.metrics = metrics;
    this.state = state;
    Leadership leadership = new Leadership(config, postgres);
    this.handover = new SlotHandover(config, postgres);
    this.term = new LeaderTerm(config, leadership, handover, metrics, state);
    this.offsetFence = FencedOffsetStore.register(new EngineFence(leadership));
    this.handler =
        new RelayBatchHandler(producer, router, config, metrics, clock, leadership, traces);
    this.checks = new SetupChecks(config, postgres, state);
    this.engine = new EngineRunner(config, offsetFence);
    this.health = new RelayHealth(config, state, handler, postgres.where(), () -> streaming);
  }

  public PostgresAccess postgres() {
    return postgres;
  }

  /**
   * The first round of checks, on the caller's thread: a wrong setting fails {@code start} at once.
   * An outage is left to {@link #run()}, which renews the lease from then on.
   */
  public void checkOnce() {
    term.startRenewing(this::closed, engine::stopAsync);
    try {
      verify();
      prepared = true;
      if (term.tryAcquire()) {
        term.lead();
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
        startOnce();
        if (closed()) {
          return;
        }
        backoff = FIRST_BACKOFF;
        continue;
      } catch (LeadershipLost e) {
        term.stepDown(e.getMessage());
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

  /** The setup checks, then the producer built: it can be once Kafka's checks passed. */
  private void verify() throws Outage {
    checks.verify(start);
    producer.open();
  }

  /** One start: checks, leadership, position, slot, then the engine until it stops. */
  private void startOnce() throws Outage {
    if (!prepared) {
      start = StartPhases.begin();
      verify();
    }
    prepared = false;
    if (!positioned) {
      boolean tookOver = false;
      if (!term.tryAcquire()) {
        if (config.getBoolean(OutboxRelayConfig.STANDBY_PRELOAD)) {
          preload.startOnce();
        }
        if (!term.awaitLeadership(this::closed, this::pause)) {
          return;
        }
        // A standby's start is its takeover (courier_outbox_leader_takeover_seconds): what went
        // before was waiting for the leader, not starting.
        start = StartPhases.begin();
        tookOver = true;
      }
      term.lead();
      start.mark("leadership");
      if (tookOver) {
        // The engine reads the position anyway, after its writer fenced the former leader's
        // transactions, and EngineFence.starting checks the slot against that read: a read of
        // its own here cost a takeover 46-314 ms (a consumer built, and waiting on the last
        // stable offset while the former leader's transaction was still open).
        Publication.narrow(config, postgres);
      } else {
        checkPosition();
      }
    }
    positioned = false;
    handover.take(Duration.ofSeconds(10));
    start.mark("slot");
    handler.skips(SkippedEvents.load(postgres));
    handler.reportStart(start);
    state.waiting(
        "STARTING",
        "starting the CDC engine on slot " + config.getString(OutboxRelayConfig.SLOT_NAME));
    engine.run(handler, new Streaming(), this::closed);
    if (!closed() && term.leading()) {
      metrics.engineRestarts.increment();
    }
  }

  /**
   * The slot against the position stored in Kafka, read only now that this replica leads: a former
   * leader may have moved it until a moment ago.
   */
  private void checkPosition() throws Outage {
    Publication.narrow(config, postgres);
    Optional<StoredPosition.Position> stored = StoredPosition.read(config);
    start.mark("stored position");
    if (stored.isEmpty()) {
      prepareCapture();
    }
    decide(SlotIdentity.check(config, postgres, stored));
    positionChecked = true;
  }

  /**
   * A first start (no stored position): the slot and publication are made now, before the engine,
   * so an event committed from here on is published whenever the engine gets to it (the writer
   * refuses events until then). Not on a later start: a slot missing then is a gap the slot check
   * names, not something to make again silently.
   */
  private void prepareCapture() throws Outage {
    try (Connection c = postgres.connect()) {
      Capture.ensure(
          c,
          config.table(),
          config.getString(OutboxRelayConfig.SLOT_NAME),
          config.getString(OutboxRelayConfig.PUBLICATION_NAME),
          config.getBoolean(OutboxRelayConfig.SLOT_FAILOVER));
    } catch (SQLException e) {
      throw postgres.classify(e);
    }
    start.mark("capture");
  }

  /** Goes on, goes on past a counted gap, or refuses naming the setting. */
  private void decide(SlotIdentity.Verdict verdict) {
    SlotGapDecider.Decision decision = SlotGapDecider.decide(verdict, config.slotGapPolicy());
    if (decision instanceof SlotGapDecider.Refuse refuse) {
      throw refuse.error();
    }
    if (decision instanceof SlotGapDecider.Accept) {
      metrics.slotGaps.increment();
      LOG.warn("{}", decision.message());
    } else {
      LOG.info("{}", decision.message());
    }
    server = verdict.server();
  }

  /**
   * What the engine's offset store asks: whether this relay leads, the server to store with each
   * position, and the check of every start of the engine's task. Debezium restarts its task inside
   * the running engine when it lost PostgreSQL, without passing this relay's start; a failover in
   * between would then have been followed silently.
   */
  private final class EngineFence implements FencedOffsetStore.Fence {
    private final Leadership leadership;

    EngineFence(Leadership leadership) {
      this.leadership = leadership;
    }

    @Override
    public boolean leads() {
      return leadership.valid();
    }

    @Override
    public Optional<ServerIdentity> server() {
      return Optional.ofNullable(server);
    }

    @Override
    public void starting(Optional<StoredPosition.Position> stored) {
      if (positionChecked) {
        positionChecked = false;
        return;
      }
      Duration wait =
          Duration.ofMillis(config.getInt(OutboxRelayConfig.POSTGRES_RECONNECT_INTERVAL_MS));
      while (true) {
        if (closed() || !term.leading()) {
          return; // the engine is being stopped: nothing streams from this start
        }
        try {
          decide(SlotIdentity.check(config, postgres, stored));
          return;
        } catch (Outage e) {
          // As Debezium would, had it connected itself: tried again until PostgreSQL answers.
          LOG.debug("slot check on restart: {}", e.getMessage());
          pause(wait);
        }
      }
    }
  }

  /** The engine's own callbacks: it streams, or it stopped. */
  private final class Streaming implements EngineRunner.Listener {
    @Override
    public void streaming() {
      term.takeoverMillis();
      start.mark("engine");
      streaming = true;
      metrics.running.set(1);
      state.streaming("streaming from slot " + config.getString(OutboxRelayConfig.SLOT_NAME));
      streamedOnce.countDown();
    }

    @Override
    public void stopped() {
      streaming = false;
      metrics.running.set(0);
    }
  }

  public ServiceHealth health() {
    return health.current();
  }

  public boolean awaitStreaming(Duration timeout) throws InterruptedException {
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

  public Throwable failure() {
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

  /** Stops the engine after the batch in flight, which stores its position. */
  public void close() {
    closing.countDown();
    if (failure.get() == null) {
      state.stopping();
    }
    engine.stop();
    // Only now, with the batch in flight done and its position stored, may a standby take over.
    release();
  }

  /** Gives up the leadership and the threads; for close, and for a relay that never started. */
  public void release() {
    term.close();
    FencedOffsetStore.unregister(offsetFence);
    engine.close();
    checks.close();
    handler.close();
  }
}
