package dev.courier.core.internal;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.common.errors.WakeupException;

/**
 * The life cycle of a consumer loop that another thread may stop. A KafkaConsumer must be closed on
 * the thread that polls it, so {@link #close()} only wakes a running loop, which then closes the
 * resources itself; a loop that never ran is closed by the caller. Either way they close once.
 */
public final class PollLoop implements AutoCloseable {

  private final Consumer<?, ?> consumer;
  private final Runnable closeResources;
  private final AtomicBoolean started = new AtomicBoolean();
  private final AtomicBoolean closed = new AtomicBoolean();
  private volatile boolean stopping;

  /** {@code closeResources} closes the consumer and whatever else the loop owns. */
  public PollLoop(Consumer<?, ?> consumer, Runnable closeResources) {
    this.consumer = consumer;
    this.closeResources = closeResources;
  }

  /**
   * Runs {@code start} (e.g. subscribe) once, then {@code step} until {@code done} holds, {@link
   * #close()} is called, or a step fails; the resources are closed when it returns.
   *
   * <p>A loop closed before it ran returns at once: a service stopped while it was starting has
   * nothing to do.
   *
   * @throws IllegalStateException if the loop already ran
   */
  public void run(Runnable start, BooleanSupplier done, Runnable step) {
    if (!started.compareAndSet(false, true)) {
      if (stopping) {
        return;
      }
      throw new IllegalStateException("this loop already ran");
    }
    try {
      start.run();
      while (!stopping && !done.getAsBoolean()) {
        step.run();
      }
    } catch (WakeupException e) {
      if (!stopping) {
        throw e;
      }
    } finally {
      closeOnce();
    }
  }

  public boolean stopping() {
    return stopping;
  }

  /** Stops the loop from any thread, or closes the resources if it never started. */
  @Override
  public void close() {
    stopping = true;
    if (started.compareAndSet(false, true)) {
      closeOnce();
    } else {
      consumer.wakeup();
    }
  }

  private void closeOnce() {
    if (closed.compareAndSet(false, true)) {
      closeResources.run();
    }
  }
}
