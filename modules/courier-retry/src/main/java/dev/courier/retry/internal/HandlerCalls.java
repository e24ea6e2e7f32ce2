package dev.courier.retry.internal;

import dev.courier.retry.HandlerTimeoutException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Runs the record handler off the polling thread, one call at a time, each within a time limit, so
 * the consumer can keep polling (and stay in its group) however long a call takes. A call that
 * outlives its limit is interrupted and abandoned: its record is settled as a timeout (retried). If
 * the handler ignores the interrupt, no other call starts until that one has ended: the same
 * record's retry, or a later record of its key, never runs beside it. {@link #stuck()} says so
 * meanwhile, for {@code /health}.
 *
 * <p>Calls are handed over in runs: the handler thread takes a run of records' calls at once and
 * makes them one after another, each call's time limit counting from its own start. Handing over
 * each record alone cost two thread wake-ups a record, more than a fast handler's call (the retry
 * tiers ran at half the raw loop's rate).
 */
public final class HandlerCalls implements AutoCloseable {

  /** Work that may throw anything a handler throws. */
  @FunctionalInterface
  public interface Work {
    void run() throws Exception;
  }

  /**
   * Work whose failure stops its run: the calls after it in the run do not start (a later record of
   * its key must not run before the failed one is retried).
   */
  public record StopsRunOnFailure(Work work) implements Work {
    @Override
    public void run() throws Exception {
      work.run();
    }
  }

  /** Makes the work at {@code index} stop its run when it fails: a later call of its key waits. */
  static void stopRunOnFailure(List<Work> works, int index) {
    if (!(works.get(index) instanceof StopsRunOnFailure)) {
      works.set(index, new StopsRunOnFailure(works.get(index)));
    }
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
  private final ExecutorService executor;
  private volatile boolean closed;

  /** What a call waits for before it starts: this member's hold on its partitions. */
  private volatile MembershipLease lease = MembershipLease.NONE;

  /** The last call abandoned while it ran; it may still be running. */
  private volatile Abandoned abandoned;

  private record Abandoned(Call call, String why, Instant at) {}

  public HandlerCalls(String name, Duration timeout, Clock clock) {
    this.name = name;
    this.timeout = timeout;
    this.clock = clock;
    this.executor = newExecutor();
  }

  public Duration timeout() {
    return timeout;
  }

  /**
   * From now on a call starts only while the lease holds ({@link MembershipLease}): a frozen or cut
   * off member does not call records whose partitions may be another member's by now.
   */
  public HandlerCalls gatedBy(MembershipLease lease) {
    this.lease = lease;
    return this;
  }

  /** Starts the work now (in a run of its own); its time limit counts from its start. */
  public Call start(Work work) {
    return startAll(List.of(work)).get(0);
  }

  /**
   * Hands a run of calls to the handler thread, which makes them in order; each call's limit counts
   * from when it starts. A call is started or cancelled, never both: {@link Call#cancelFromHere()}
   * and {@link Call#abandon} settle which, so the caller knows exactly which calls ran.
   */
  public List<Call> startAll(List<Work> works) {
    List<Call> run = new ArrayList<>(works.size());
    for (Work work : works) {
      run.add(new Call(work, run, run.size()));
    }
    executor.execute(
        () -> {
          for (Call call : run) {
            boolean held = lease.awaitHeld(() -> !closed && call.state.get() == WAITING);
            if (!held || closed || !call.state.compareAndSet(WAITING, STARTED)) {
              return; // cancelled from here on
            }
            call.run();
            if (call.work instanceof StopsRunOnFailure && !call.result.join().succeeded()) {
              call.cancelAfter();
              return;
            }
          }
        });
    return run;
  }

  private static final int WAITING = 0;
  private static final int STARTED = 1;
  private static final int CANCELLED = 2;

  /** One handler call, waiting its turn in its run, in progress, or done. */
  public final class Call {
    private final Work work;
    private final List<Call> run;
    private final int index;
    private final AtomicInteger state = new AtomicInteger(WAITING);
    private final CompletableFuture<Result> result = new CompletableFuture<>();

    /** When the call started; null while it waits its turn. */
    private volatile Instant started;

    /** The thread making the call, while it makes it: what {@link #abandon} interrupts. */
    private Thread runner;

    private Call(Work work, List<Call> run, int index) {
      this.work = work;
      this.run = run;
      this.index = index;
    }

    private void run() {
      synchronized (this) {
        runner = Thread.currentThread();
      }
      started = clock.instant();
      try {
        work.run();
        result.complete(Result.OK);
      } catch (Exception | Error e) {
        result.complete(new Result(Optional.of(e)));
      } finally {
        synchronized (this) {
          runner = null;
          // An abandon's interrupt was meant for this call, not the next one of the thread.
          Thread.interrupted();
        }
      }
    }

    /** Whether a failure of this call stops its run ({@link StopsRunOnFailure}). */
    public boolean stopsRun() {
      return work instanceof StopsRunOnFailure;
    }

    private void cancelAfter() {
      for (int i = index + 1; i < run.size(); i++) {
        run.get(i).state.compareAndSet(WAITING, CANCELLED);
      }
    }

    /** Whether the handler thread took this call (it may still be running it). */
    public boolean started() {
      return state.get() == STARTED;
    }

    /** The result if the call ends within {@code wait}; empty if it is still running or waiting. */
    public Optional<Result> await(Duration wait) {
      try {
        return Optional.of(result.get(Math.max(0, wait.toNanos()), TimeUnit.NANOSECONDS));
      } catch (TimeoutException e) {
        return Optional.empty();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return Optional.empty();
      } catch (ExecutionException | CancellationException e) {
        return Optional.of(new Result(Optional.of(e)));
      }
    }

    /** Time left before the call's limit: the whole limit while it waits its turn. */
    public Duration remaining() {
      Instant from = started;
      if (from == null) {
        return timeout;
      }
      Duration left = Duration.between(clock.instant(), from.plus(timeout));
      return left.isNegative() ? Duration.ZERO : left;
    }

    public boolean expired() {
      Instant from = started;
      return from != null && !clock.instant().isBefore(from.plus(timeout));
    }

    /**
     * Interrupts the call and gives up on it and on the calls of its run not started yet; no result
     * of theirs will be used.
     */
    public Result abandon(String why) {
      cancelFromHere();
      synchronized (this) {
        if (runner != null) {
          runner.interrupt();
          // Until it ends, calls queue behind it on the one handler thread.
          abandoned = new Abandoned(this, why, clock.instant());
        }
      }
      return new Result(Optional.of(new HandlerTimeoutException(why)));
    }

    /**
     * This call and those after it in its run, as far as they have not started, never will (the
     * loop stops, the partition went away). Those that started run to their end.
     */
    public void cancelFromHere() {
      for (int i = index; i < run.size(); i++) {
        run.get(i).state.compareAndSet(WAITING, CANCELLED);
      }
    }
  }

  /**
   * A call that was abandoned and still runs (its handler ignored the interrupt): no other call
   * starts until it ends.
   */
  public Optional<String> stuck() {
    Abandoned a = abandoned;
    if (a == null || a.call().result.isDone()) {
      return Optional.empty();
    }
    return Optional.of(
        "a handler call abandoned at "
            + a.at()
            + " ("
            + a.why()
            + ") still runs, ignoring its interrupt; no other call starts until it ends");
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
    closed = true;
    executor.shutdownNow();
  }
}
