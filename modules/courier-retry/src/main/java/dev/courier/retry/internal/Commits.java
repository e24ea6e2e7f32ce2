package dev.courier.retry.internal;

import dev.courier.core.internal.CommitFloor;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.locks.LockSupport;
import org.apache.kafka.clients.consumer.CommitFailedException;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.consumer.RetriableCommitFailedException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.RebalanceInProgressException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.errors.WakeupException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The offsets of records that are done (handled, or forwarded and acknowledged) and not committed
 * yet. A commit the group refuses is not an error of the loop: after a rebalance the partition's
 * new owner redoes what was not committed, and the idempotent store absorbs the repeat.
 */
public final class Commits {

  /**
   * Asked before every commit: the forwards of what is committed must be acknowledged first, no
   * offset goes past a record whose forward was neither delivered nor parked, and none reaches a
   * record held back (a head whose key's state is not written yet).
   */
  public interface BeforeCommit {
    /**
     * Waits for every forward (a synchronous commit: revocation, close, the commit interval); what
     * is still held back after that is in {@link ForwardAcks#unacknowledged()}.
     */
    ForwardAcks awaitAll();

    /** Without waiting (the commit after each poll): what is answered, and what is not yet. */
    ForwardAcks soFar();

    /** After the group took a commit: these offsets are committed. */
    default void committed(Map<TopicPartition, OffsetAndMetadata> offsets) {}
  }

  /**
   * How long one synchronous commit may take (the consumer's {@code default.api.timeout.ms}), and
   * how long a revocation keeps trying one that does not go through (its {@code
   * max.poll.interval.ms}: the rebalance waits no longer for this member).
   */
  public record Limits(Duration attempt, Duration revocation) {}

  private static final Logger LOG = LoggerFactory.getLogger(Commits.class);
  private static final Duration FIRST_RETRY = Duration.ofMillis(500);
  private static final Duration MAX_RETRY = Duration.ofSeconds(30);
  private static final Duration MAX_REVOCATION_RETRY = Duration.ofSeconds(5);

  private enum Attempt {
    COMMITTED,
    /** Not through (coordinator unreachable or moving); the offsets are still ours. */
    NOT_THROUGH,
    /** Refused or postponed by the group: nothing more this member can do for them now. */
    SETTLED_ELSEWHERE
  }

  private final Consumer<?, ?> consumer;
  private final BeforeCommit beforeCommit;
  private final RetryMetrics metrics;
  private final Limits limits;
  private final Shutdown shutdown;
  private final Clock clock;
  private final Map<TopicPartition, OffsetAndMetadata> pending = new HashMap<>();

  /** The offsets of the newest commit asked for per partition, so a failed older one stays lost. */
  private final Map<TopicPartition, OffsetAndMetadata> asked = new HashMap<>();

  /** No partition's committed offset moves back ({@link CommitFloor}). */
  private final CommitFloor floor;

  /**
   * Per partition, a record whose forward was neither delivered nor parked: nothing past it is
   * committed until it is done (read again and settled).
   */
  private final Map<TopicPartition, Long> caps = new HashMap<>();

  private long lastCommitMillis;

  /** Failed asynchronous commits in a row: the next waits longer, and only the first is logged. */
  private int failuresInARow;

  private long notBeforeMillis;

  public Commits(
      Consumer<?, ?> consumer,
      BeforeCommit beforeCommit,
      RetryMetrics metrics,
      Limits limits,
      Shutdown shutdown,
      Clock clock) {
    this.consumer = consumer;
    this.beforeCommit = beforeCommit;
    this.metrics = metrics;
    this.limits = limits;
    this.shutdown = shutdown;
    this.clock = clock;
    this.lastCommitMillis = clock.millis();
    this.floor = new CommitFloor(limits.attempt());
  }

  /**
   * Partitions assigned: each one's floor is what the group committed, read now (in the rebalance
   * callback), so no commit of this member takes it back.
   */
  public void assigned(Collection<TopicPartition> partitions) {
    floor.assigned(consumer, partitions);
  }

  /** The group's commit of an assigned partition as read at its assignment, if it has one. */
  public Optional<OffsetAndMetadata> atAssignment(TopicPartition tp) {
    return floor.atAssignment(tp);
  }

  /** Everything before {@code next} in the partition is done. */
  public void done(TopicPartition tp, long next) {
    Long cap = caps.get(tp);
    if (cap != null) {
      if (next == cap + 1) {
        caps.remove(tp); // the undelivered record itself, read again, is done now
      } else if (next > cap) {
        pending.merge(tp, new OffsetAndMetadata(cap), (a, b) -> a.offset() <= b.offset() ? a : b);
        return;
      }
    }
    pending.put(tp, new OffsetAndMetadata(next));
  }

  public boolean due(Duration interval) {
    return !pending.isEmpty() && clock.millis() - lastCommitMillis >= interval.toMillis();
  }

  /** Commits every pending offset and waits for the answer. */
  public void commit() {
    Map<TopicPartition, Long> held = settleForwards();
    if (!pending.isEmpty()) {
      Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
      pending.forEach((tp, o) -> offsets.put(tp, heldBack(o, held.get(tp))));
      attempt(forward(offsets));
    }
  }

  /**
   * Commits every pending offset without waiting for the answer, as the loop does after each poll:
   * a synchronous commit there cost a round trip to the coordinator every time the loop woke for a
   * held record, and the hops due meanwhile waited for it. The answer comes with a later poll; a
   * commit that fails puts its offsets back unless newer ones are pending (or the partition is
   * gone), and the next commit (revocation and close commit synchronously) carries them. Nor does
   * it wait for forwards: a partition is committed only up to its earliest record whose forward is
   * still on its way.
   */
  public void commitAsync() {
    ForwardAcks acks = beforeCommit.soFar();
    cap(acks.undelivered());
    if (pending.isEmpty() || clock.millis() < notBeforeMillis) {
      return;
    }
    Map<TopicPartition, OffsetAndMetadata> held = new HashMap<>();
    pending.forEach((tp, o) -> held.put(tp, heldBack(o, acks.unacknowledged().get(tp))));
    // A hold below what is committed (a record released from behind its key, a forward of a
    // partition read again) holds the partition where it is: it never takes it back.
    Map<TopicPartition, OffsetAndMetadata> offsets = forward(held);
    // What is committed whole leaves pending; a partition held back below a forward on its way
    // stays, and goes further with a later commit once the forward is answered.
    offsets.forEach((tp, o) -> pending.remove(tp, o));
    if (offsets.isEmpty()) {
      return;
    }
    asked.putAll(offsets);
    floor.asked(offsets);
    lastCommitMillis = clock.millis();
    consumer.commitAsync(
        CommitFloor.stamped(offsets, clock.millis()),
        (committed, e) -> {
          if (e == null) {
            floor.committed(committed);
            beforeCommit.committed(committed);
            if (failuresInARow > 0) {
              LOG.info("commits go through again after {} failed", failuresInARow);
            }
            failuresInARow = 0;
            notBeforeMillis = 0;
            return;
          }
          if (e instanceof CommitFailedException) {
            refused(offsets, e);
            return;
          }
          // Only where this member still owns the partition (a revoked one is its new owner's)
          // and no newer commit was asked for: putting an older offset back would move the
          // group's position backwards.
          Set<TopicPartition> owned = consumer.assignment();
          offsets.forEach(
              (tp, o) -> {
                if (owned.contains(tp) && o.equals(asked.get(tp))) {
                  pending.putIfAbsent(tp, o);
                }
              });
          metrics.commitFailures.increment();
          failuresInARow++;
          long wait = FIRST_RETRY.toMillis() << Math.min(failuresInARow - 1, 6);
          notBeforeMillis = clock.millis() + Math.min(wait, MAX_RETRY.toMillis());
          if (failuresInARow == 1) {
            LOG.info("commit of {} did not go through ({}); trying again", offsets, e.toString());
          } else {
            LOG.debug("commit of {} failed again ({})", offsets, e.toString());
          }
        });
  }

  /**
   * Commits the pending offsets of these partitions (being revoked) and forgets them. One that does
   * not go through is tried again until it does, the group refuses it, the rebalance stops waiting
   * for this member ({@link Limits#revocation()}) or the shutdown deadline passes: only then does
   * the new owner repeat those records (logged, and counted in {@code
   * courier_retry_commit_failures_total}).
   */
  public void commitRevoked(Collection<TopicPartition> partitions) {
    Map<TopicPartition, Long> held = settleForwards();
    Map<TopicPartition, OffsetAndMetadata> revoked = new HashMap<>();
    partitions.forEach(
        tp -> {
          OffsetAndMetadata o = pending.get(tp);
          if (o != null) {
            revoked.put(tp, heldBack(o, held.get(tp)));
          }
        });
    Map<TopicPartition, OffsetAndMetadata> offsets = forward(revoked);
    Instant giveUp = clock.instant().plus(limits.revocation());
    Instant stopBy = shutdown.deadline();
    if (stopBy != null && stopBy.isBefore(giveUp)) {
      giveUp = stopBy;
    }
    Duration backOff = FIRST_RETRY;
    while (!offsets.isEmpty() && attempt(offsets) == Attempt.NOT_THROUGH) {
      if (!clock.instant().plus(backOff).isBefore(giveUp)) {
        LOG.warn(
            "commit of {} did not go through before the rebalance or shutdown stopped waiting;"
                + " the partitions' new owner repeats the records done since the last commit",
            offsets);
        break;
      }
      LockSupport.parkNanos(backOff.toNanos()); // a back-off between attempts, not a test wait
      backOff =
          backOff.multipliedBy(2).compareTo(MAX_REVOCATION_RETRY) > 0
              ? MAX_REVOCATION_RETRY
              : backOff.multipliedBy(2);
    }
    drop(partitions);
  }

  /**
   * Forgets partitions that were lost or handed over: their offsets can no longer be committed by
   * us, and an answer still to come for them is not ours to act on.
   */
  public void drop(Collection<TopicPartition> partitions) {
    partitions.forEach(pending::remove);
    partitions.forEach(asked::remove);
    partitions.forEach(caps::remove);
    floor.forget(partitions);
  }

  /** One synchronous commit of these offsets, within {@link Limits#attempt()}. */
  private Attempt attempt(Map<TopicPartition, OffsetAndMetadata> offsets) {
    for (int tries = 1; ; tries++) {
      try {
        asked.putAll(offsets);
        floor.asked(offsets);
        consumer.commitSync(CommitFloor.stamped(offsets, clock.millis()), limits.attempt());
        floor.committed(offsets);
        offsets.forEach(pending::remove);
        beforeCommit.committed(offsets);
        lastCommitMillis = clock.millis();
        return Attempt.COMMITTED;
      } catch (WakeupException e) {
        // close() woke the consumer to stop the loop; the commit must still happen.
        if (tries > 1) {
          throw e;
        }
      } catch (RebalanceInProgressException e) {
        // Outside a revocation, the next poll completes the rebalance and its revocation commits
        // these; inside one, this member is out of the new generation and the new owner repeats.
        LOG.info("commit of {} refused: the group is rebalancing", offsets.keySet());
        return Attempt.SETTLED_ELSEWHERE;
      } catch (CommitFailedException e) {
        // This member lost the partitions: their new owner redoes the rest.
        offsets.keySet().forEach(pending::remove);
        refused(offsets, e);
        return Attempt.SETTLED_ELSEWHERE;
      } catch (TimeoutException | RetriableCommitFailedException e) {
        metrics.commitFailures.increment();
        LOG.warn("commit of {} did not go through ({}); trying again", offsets, e.toString());
        return Attempt.NOT_THROUGH;
      }
    }
  }

  /** The offsets that move their partitions forward ({@link CommitFloor}). */
  private Map<TopicPartition, OffsetAndMetadata> forward(
      Map<TopicPartition, OffsetAndMetadata> offsets) {
    return new HashMap<>(floor.forward(consumer, offsets));
  }

  /**
   * Waits for every forward: no pending offset goes past a record whose forward was neither
   * delivered nor parked.
   *
   * @return per partition, the earliest record still held back (its offset is committed at most)
   */
  private Map<TopicPartition, Long> settleForwards() {
    ForwardAcks acks = beforeCommit.awaitAll();
    cap(acks.undelivered());
    return acks.unacknowledged();
  }

  /**
   * The pending offset, or the held-back record's when it is earlier: committed only up to it, the
   * pending offset stays for a later commit.
   */
  private static OffsetAndMetadata heldBack(OffsetAndMetadata pending, Long held) {
    return held == null || held >= pending.offset() ? pending : new OffsetAndMetadata(held);
  }

  private void cap(List<Undelivered> undelivered) {
    for (Undelivered u : undelivered) {
      caps.merge(u.source(), u.offset(), Math::min);
      pending.computeIfPresent(
          u.source(), (tp, o) -> o.offset() > u.offset() ? new OffsetAndMetadata(u.offset()) : o);
    }
  }

  private void refused(Map<TopicPartition, OffsetAndMetadata> offsets, Exception e) {
    metrics.commitsRefused.increment();
    LOG.warn(
        "commit of {} refused ({}); the partitions' new owner redoes those records",
        offsets.keySet(),
        e.getMessage());
  }
}
