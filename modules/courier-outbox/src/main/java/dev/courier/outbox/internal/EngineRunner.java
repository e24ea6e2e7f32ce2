package dev.courier.outbox.internal;

import dev.courier.core.internal.Failures;
import dev.courier.outbox.OutboxRelayConfig;
import dev.courier.outbox.RelayFault;
import io.debezium.embedded.Connect;
import io.debezium.engine.DebeziumEngine;
import io.debezium.engine.RecordChangeEvent;
import io.debezium.engine.format.ChangeEventFormat;
import java.io.IOException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.connect.source.SourceRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs Debezium's embedded engine, one at a time, on a thread of its own, and says why one stopped:
 * the leadership lost, a row the policy stops at, or anything else (checked again as an outage
 * before the next engine).
 */
public final class EngineRunner implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(EngineRunner.class);

  /** What the engine's callbacks tell the relay. */
  public interface Listener {
    /** The engine streams changes. */
    void streaming();

    /** The engine stopped streaming, for whatever reason. */
    void stopped();
  }

  private final OutboxRelayConfig config;
  private final String offsetFence;
  private final ExecutorService engines =
      Executors.newSingleThreadExecutor(r -> new Thread(r, "courier-outbox-engine"));
  private volatile DebeziumEngine<RecordChangeEvent<SourceRecord>> engine;
  private volatile CountDownLatch engineStopped;

  /**
   * @param offsetFence the id under which the engine's offset store finds the leadership that
   *     fences its positions ({@link FencedOffsetStore})
   */
  public EngineRunner(OutboxRelayConfig config, String offsetFence) {
    this.config = config;
    this.offsetFence = offsetFence;
  }

  /**
   * Runs one engine until it stops.
   *
   * @param closed whether the relay is closing: an engine stopped for that ends normally
   * @throws LeadershipLost when it stopped because this relay no longer leads
   * @throws RelayFault when it stopped at a row the policy says to stop at
   * @throws Outage for anything else, checked again before the next engine
   */
  public void run(
      DebeziumEngine.ChangeConsumer<RecordChangeEvent<SourceRecord>> handler,
      Listener listener,
      java.util.function.BooleanSupplier closed)
      throws Outage {
    CountDownLatch stopped = new CountDownLatch(1);
    AtomicReference<Throwable> error = new AtomicReference<>();
    AtomicReference<String> message = new AtomicReference<>();
    engine =
        DebeziumEngine.create(ChangeEventFormat.of(Connect.class))
            .using(EngineProperties.of(config, offsetFence))
            .using(
                new DebeziumEngine.ConnectorCallback() {
                  @Override
                  public void pollingStarted() {
                    listener.streaming();
                  }

                  @Override
                  public void pollingStopped() {
                    listener.stopped();
                  }
                })
            .using(
                (success, msg, err) -> {
                  listener.stopped();
                  message.set(msg);
                  error.set(err);
                  stopped.countDown();
                })
            .notifying(handler)
            .build();
    engineStopped = stopped;
    engines.submit(engine);
    try {
      stopped.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    Throwable err = error.get();
    if (closed.getAsBoolean() || err == null) {
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

  /** Stops the running engine from another thread, without waiting (a lost leadership). */
  public void stopAsync() {
    DebeziumEngine<RecordChangeEvent<SourceRecord>> e = engine;
    if (e != null) {
      Thread stop = new Thread(() -> closeQuietly(e), "courier-outbox-step-down");
      stop.setDaemon(true);
      stop.start();
    }
  }

  /** Stops the engine after the batch in flight, which stores its position, and waits for it. */
  public void stop() {
    DebeziumEngine<RecordChangeEvent<SourceRecord>> e = engine;
    if (e == null) {
      return;
    }
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

  @Override
  public void close() {
    engines.shutdown();
  }

  private static void closeQuietly(DebeziumEngine<RecordChangeEvent<SourceRecord>> e) {
    try {
      e.close();
    } catch (IOException | RuntimeException ex) {
      LOG.debug("engine close: {}", ex.toString());
    }
  }

  private static <T extends Throwable> T find(Throwable e, Class<T> type) {
    for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (type.isInstance(t)) {
        return type.cast(t);
      }
    }
    return null;
  }
}
