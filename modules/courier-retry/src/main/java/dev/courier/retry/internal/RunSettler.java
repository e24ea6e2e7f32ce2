package dev.courier.retry.internal;

import dev.courier.retry.RetryConfig;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Settles a {@link Run}'s records in order. While a call runs long, every partition is paused and
 * the loop keeps polling so the member stays in its group and takes part in rebalances; a
 * revocation or a shutdown settles what has started and leaves the rest to the next owner.
 */
public final class RunSettler {

  /** How a run ended. */
  public enum Settled {
    /** Every record of it is done. */
    DONE,
    /** Done up to a call that timed out; the records after it were not called and must be again. */
    BROKEN,
    /** Stopped (shutdown, revocation): what is done is done, the rest is the next owner's. */
    NOT_DONE
  }

  private static final Logger LOG = LoggerFactory.getLogger(RunSettler.class);

  /** How long a fast call is awaited before the partitions are paused for a slow one. */
  private static final Duration FIRST_WAIT = Duration.ofMillis(20);

  /** How often the loop polls (to stay in the group) while a call runs. */
  private static final Duration BUSY_POLL = Duration.ofMillis(100);

  private final Consumer<byte[], byte[]> consumer;
  private final PartitionPauses pauses;
  private final Commits commits;
  private final Outcomes outcomes;
  private final Shutdown shutdown;
  private final Duration commitInterval;
  private final Duration handlerTimeout;
  private final Clock clock;

  /** Partitions taken away while the current poll's records were being handled. */
  private final Set<TopicPartition> revoked = new HashSet<>();

  /** The run whose call the loop waits for while it keeps polling, if any. */
  private Run inFlight;

  /**
   * Runs whose calls went to the handler thread and that are not settled yet: the released runs of
   * a turn start together, so a revocation must wait for every started call of its partitions, not
   * only the one the loop waits for.
   */
  private final Set<Run> outstanding = new LinkedHashSet<>();

  public RunSettler(
      Consumer<byte[], byte[]> consumer,
      PartitionPauses pauses,
      Commits commits,
      Outcomes outcomes,
      Shutdown shutdown,
      Duration commitInterval,
      Duration handlerTimeout,
      Clock clock) {
    this.consumer = consumer;
    this.pauses = pauses;
    this.commits = commits;
    this.outcomes = outcomes;
    this.shutdown = shutdown;
    this.commitInterval = commitInterval;
    this.handlerTimeout = handlerTimeout;
    this.clock = clock;
  }

  /** What the loop does at each poll while it waits for a call (keeping its lease proven). */
  private Runnable whileBusy = () -> {};

  /** A call's outcome is written only while this member is known to be in its group. */
  private MembershipLease lease = MembershipLease.NONE;

  /**
   * @param lease what an outcome waits for before it is written (a forward, a dead letter, a key's
   *     state): a thawed or cut-off member's would land after its partition's next owner's
   * @param whileBusy what the loop does at each poll while it waits (seeking proofs)
   */
  public void membership(MembershipLease lease, Runnable whileBusy) {
    this.lease = lease;
    this.whileBusy = whileBusy;
  }

  /** The run's calls went to the handler thread: a revocation settles what of it started. */
  public void register(Run run) {
    outstanding.add(run);
  }

  public Settled settle(Run run) {
    if (run.finished) {
      return Settled.NOT_DONE; // settled as far as it went by a revocation
    }
    register(run);
    boolean leftCleanly = false;
    try {
      while (run.hasNext()) {
        if (shutdown.requested()) {
          run.cancelRest();
          settleStarted(run);
          leftCleanly = true;
          return Settled.NOT_DONE;
        }
        if (revoked.contains(run.tp)) {
          run.cancelRest();
          leftCleanly = true;
          return Settled.NOT_DONE;
        }
        RecordStep step = run.step();
        if (!(step instanceof RecordStep.Call call)) {
          outcomes.settle(run.record(), step, run.decidedAt);
          done(run);
          continue;
        }
        HandlerCalls.Call handlerCall = run.call();
        Optional<HandlerCalls.Result> result = handlerCall.await(FIRST_WAIT);
        Settled slow = Settled.DONE;
        if (result.isPresent()) {
          if (!leaseHeld(run)) {
            leftCleanly = true;
            return Settled.NOT_DONE; // lost meanwhile: the next owner redoes it
          }
          called(run, call, result.get());
        } else {
          slow = awaitSlowCall(run, call);
        }
        if (slow == Settled.DONE
            && handlerCall.stopsRun()
            && failed(handlerCall)
            && run.hasNext()) {
          slow = Settled.BROKEN; // the calls after it did not start: they are prepared again
        }
        if (slow != Settled.DONE) {
          leftCleanly = true;
          return slow;
        }
      }
      leftCleanly = true;
      return Settled.DONE;
    } finally {
      outstanding.remove(run);
      if (!leftCleanly) {
        run.cancelRest(); // an Error on the way out: no call of the run may start after it
      }
    }
  }

  /** Marks partitions taken away in this poll: their runs stop at the next record. */
  public void revoked(Collection<TopicPartition> partitions) {
    revoked.addAll(partitions);
  }

  /** After a revocation or loss: attempts of these partitions left unsettled end as abandoned. */
  public void abandonSpans(Collection<TopicPartition> partitions) {
    outcomes.tracing().abandon(partitions);
  }

  public boolean isRevoked(TopicPartition tp) {
    return revoked.contains(tp);
  }

  /** A new poll: what was revoked before it is no longer in any run. */
  public void clearRevoked() {
    revoked.clear();
  }

  public boolean callInFlight() {
    return inFlight != null;
  }

  /**
   * In a revocation: settles the call in flight if it is one of these partitions' (it gets until
   * its own time limit, or the shutdown deadline), so the commit that follows repeats nothing.
   */
  public void finishRevoked(Collection<TopicPartition> partitions) {
    // Every run of theirs stops first, so no call not started yet starts while one is awaited.
    List<Run> theirs =
        outstanding.stream().filter(r -> !r.finished && partitions.contains(r.tp)).toList();
    theirs.forEach(Run::cancelRest);
    for (Run run : theirs) {
      int before = run.next;
      settleStarted(run);
      run.finished = true;
      if (run.next > before) {
        LOG.info(
            "{} record(s) of {} finished during the revocation of their partition",
            run.next - before,
            run.tp);
      }
    }
  }

  /** The partitions are lost: a call in flight of theirs is abandoned, not settled. */
  public void abandonLost(Collection<TopicPartition> partitions) {
    for (Run run : outstanding) {
      if (!run.finished && partitions.contains(run.tp)) {
        run.finished = true;
        if (run.nextCall < run.calls.size()) {
          run.call().abandon("partition lost");
        }
      }
    }
  }

  /**
   * Whether the member is known to be in its group, so the outcome of a call it made may be
   * written; if not, polls (every partition paused) until a proof comes or the run's partition is
   * lost, revoked or the loop stops.
   */
  private boolean leaseHeld(Run run) {
    if (lease.holds()) {
      return true;
    }
    Run before = inFlight;
    inFlight = run;
    pauses.pauseForCall(consumer.assignment());
    try {
      while (!lease.awaitFor(BUSY_POLL)) {
        if (run.finished || shutdown.requested() || revoked.contains(run.tp)) {
          return false;
        }
        pollWhileBusy();
      }
      return !run.finished;
    } finally {
      inFlight = before;
      if (before == null) {
        pauses.resumeAfterCall();
      }
    }
  }

  private void called(Run run, RecordStep.Call call, HandlerCalls.Result result) {
    outcomes.called(run.record(), call.state(), call.tier(), result);
    run.nextCall++;
    done(run);
  }

  private static boolean failed(HandlerCalls.Call call) {
    return call.await(Duration.ZERO).map(r -> !r.succeeded()).orElse(true);
  }

  /** The record at {@code run.next} is done: its offset may be committed. */
  private void done(Run run) {
    if (!run.released) {
      commits.done(run.tp, run.record().offset() + 1);
    }
    run.next++;
    if (commits.due(commitInterval)) {
      commits.commit();
    }
  }

  /**
   * Waits for a call that did not end within {@link #FIRST_WAIT}, polling meanwhile with every
   * partition paused.
   *
   * @return DONE when it is settled and the run goes on; BROKEN when it timed out (settled as a
   *     timeout, the rest of its run cancelled); NOT_DONE when it was abandoned or a rebalance
   *     callback settled the run
   */
  private Settled awaitSlowCall(Run run, RecordStep.Call step) {
    HandlerCalls.Call call = run.call();
    ConsumerRecord<byte[], byte[]> record = run.record();
    inFlight = run;
    pauses.pauseForCall(consumer.assignment());
    try {
      while (!run.finished) {
        Optional<HandlerCalls.Result> result = call.await(BUSY_POLL);
        if (result.isPresent()) {
          if (!leaseHeld(run)) {
            return Settled.NOT_DONE;
          }
          called(run, step, result.get());
          return Settled.DONE;
        }
        if (call.expired()) {
          called(run, step, call.abandon(timeoutMessage(record)));
          return run.hasNext() ? Settled.BROKEN : Settled.DONE;
        }
        if (shutdown.past(clock.instant())) {
          call.abandon("shutting down");
          LOG.warn("{} abandoned at shutdown; its next owner redoes it", coordinates(record));
          return Settled.NOT_DONE;
        }
        pollWhileBusy();
      }
      return Settled.NOT_DONE; // settled (and committed) or abandoned by a rebalance callback
    } finally {
      inFlight = null;
      pauses.resumeAfterCall();
    }
  }

  /**
   * With the rest of its run cancelled, settles the run's steps from {@code run.next} on as long as
   * their calls started (each gets its own limit, and no longer than the shutdown deadline): a call
   * that ran is not left for the next owner to repeat.
   */
  private void settleStarted(Run run) {
    Instant deadline = shutdown.deadline();
    while (run.hasNext()) {
      RecordStep step = run.step();
      if (!(step instanceof RecordStep.Call callStep)) {
        outcomes.settle(run.record(), step, run.decidedAt);
        done(run);
        continue;
      }
      HandlerCalls.Call call = run.call();
      if (!call.started()) {
        return;
      }
      Duration wait = call.remaining();
      if (deadline != null) {
        Duration left = Duration.between(clock.instant(), deadline);
        wait = left.compareTo(wait) < 0 ? left : wait;
      }
      Optional<HandlerCalls.Result> result = call.await(wait);
      if (result.isEmpty()) {
        call.abandon("stopping");
        LOG.warn("{} abandoned; its next owner redoes it", coordinates(run.record()));
        return;
      }
      called(run, callStep, result.get());
    }
  }

  private String timeoutMessage(ConsumerRecord<?, ?> record) {
    return "handler did not finish "
        + coordinates(record)
        + " within "
        + RetryConfig.HANDLER_TIMEOUT_MS
        + "="
        + handlerTimeout.toMillis();
  }

  /** Keeps the membership alive; every partition is paused, so no record comes back. */
  private void pollWhileBusy() {
    ConsumerRecords<byte[], byte[]> stray;
    try {
      stray = consumer.poll(Duration.ZERO);
    } catch (WakeupException e) {
      if (!shutdown.requested()) {
        throw e;
      }
      return; // close() woke us: the call gets until the shutdown deadline
    }
    pauses.rewind(stray);
    whileBusy.run();
  }

  private static String coordinates(ConsumerRecord<?, ?> r) {
    return Outcomes.coordinates(r);
  }
}
