package dev.courier.retry.internal;

import dev.courier.retry.HandlerTimeoutException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Runs the record handler off the polling thread, one call at a time, each within a time limit, so
 * the consumer can keep polling (and stay in its group) however long a call takes. A call that
 * outlives its limit is interrupted and abandoned; if its thread does not stop, the next call gets
 * a fresh thread rather than queueing behind a stuck one.
 */
public final class HandlerCalls implements AutoCloseable {

  /** Work that may throw anything a handler throws. */
  @FunctionalInterface
  public interface Work {
    void run() throws Exception;
  }

  /**
   * How a call ended: {@code failure} is empty on success, the handler's exception or {@link Error}
   * otherwise, or a {@link HandlerTimeoutException} when it ran out of time.
   */
  public record Result(Optional<Throwable> failure) {
    static final Result OK = new Result(Optional.empty());

    public boolean succeeded() {
      return failure.isEmpty();
    }
  }

  private static final AtomicInteger THREADS = new AtomicInteger();

  private final Duration timeout;
  private final Clock clock;
  private final String name;
  private ExecutorService executor;

  public HandlerCalls(String name, Duration timeout, Clock clock) {
    this.name = name;
    this.timeout = timeout;
    this.clock = clock;
    this.executor = newExecutor();
  }

  public Duration timeout() {
    return timeout;
  }

  /** Starts the work now; its time limit counts from here. */
  public Call start(Work work) {
    Future<Result> future =
        executor.submit(
            () -> {
              try {
                work.run();
                return Result.OK;
              } catch (Exception | Error e) {
                return new Result(Optional.of(e));
              }
            });
    return new Call(future, clock.instant().plus(timeout));
  }

  /** One handler call in progress. */
  public final class Call {
    private final Future<Result> future;
    private final Instant deadline;

    private Call(Future<Result> future, Instant deadline) {
      this.future = future;
      this.deadline = deadline;
    }

    /** The result if the call ends within {@code wait}; empty if it is still running. */
    public Optional<Result> await(Duration wait) {
      try {
        return Optional.of(future.get(Math.max(0, wait.toNanos()), TimeUnit.NANOSECONDS));
      } catch (TimeoutException e) {
        return Optional.empty();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return Optional.empty();
      } catch (ExecutionException | CancellationException e) {
        return Optional.of(new Result(Optional.of(e)));
      }
    }

    /** Time left before the call's limit (zero once it passed). */
    public Duration remaining() {
      Duration left = Duration.between(clock.instant(), deadline);
      return left.isNegative() ? Duration.ZERO : left;
    }

    public boolean expired() {
      return !clock.instant().isBefore(deadline);
    }

    /** Interrupts the call and gives up on it; its result will never be used. */
    public Result abandon(String why) {
      future.cancel(true);
      // A handler that ignores interrupts keeps its thread: later calls get another.
      executor.shutdownNow();
      executor = newExecutor();
      return new Result(Optional.of(new HandlerTimeoutException(why)));
    }
  }

  private ExecutorService newExecutor() {
    return Executors.newSingleThreadExecutor(
        r -> {
          Thread t = new Thread(r, "courier-handler-" + name + "-" + THREADS.incrementAndGet());
          t.setDaemon(true);
          return t;
        });
  }

  @Override
  public void close() {
    executor.shutdownNow();
  }
}
