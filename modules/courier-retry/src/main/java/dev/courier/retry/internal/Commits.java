package dev.courier.retry.internal;

import java.time.Clock;
import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
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
   * Runs before every commit: the forwards of what is committed must be acknowledged first, and no
   * offset goes past a record whose forward was neither delivered nor parked.
   */
  @FunctionalInterface
  public interface BeforeCommit {
    List<LadderPublisher.Undelivered> run();
  }

  private static final Logger LOG = LoggerFactory.getLogger(Commits.class);
  private static final Duration TIMEOUT = Duration.ofSeconds(30);
  private static final Duration FIRST_RETRY = Duration.ofMillis(500);
  private static final Duration MAX_RETRY = Duration.ofSeconds(30);

  private final Consumer<?, ?> consumer;
  private final BeforeCommit beforeCommit;
  private final Runnable onRefused;
  private final Clock clock;
  private final Map<TopicPartition, OffsetAndMetadata> pending = new HashMap<>();

  /** The offsets of the newest commit asked for per partition, so a failed older one stays lost. */
  private final Map<TopicPartition, OffsetAndMetadata> asked = new HashMap<>();

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
      Consumer<?, ?> consumer, BeforeCommit beforeCommit, Runnable onRefused, Clock clock) {
    this.consumer = consumer;
    this.beforeCommit = beforeCommit;
    this.onRefused = onRefused;
    this.clock = clock;
    this.lastCommitMillis = clock.millis();
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
    commit(Map.copyOf(pending));
  }

  /**
   * Commits every pending offset without waiting for the answer, as the loop does after each poll:
   * a synchronous commit there cost a round trip to the coordinator every time the loop woke for a
   * held record, and the hops due meanwhile waited for it. The answer comes with a later poll; a
   * commit that fails puts its offsets back unless newer ones are pending (or the partition is
   * gone), and the next commit (revocation and close commit synchronously) carries them.
   */
  public void commitAsync() {
    capAtUndelivered();
    if (pending.isEmpty() || clock.millis() < notBeforeMillis) {
      return;
    }
    Map<TopicPartition, OffsetAndMetadata> offsets = Map.copyOf(pending);
    pending.clear();
    asked.putAll(offsets);
    lastCommitMillis = clock.millis();
    consumer.commitAsync(
        offsets,
        (committed, e) -> {
          if (e == null) {
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

  /** Commits the pending offsets of these partitions (being revoked) and forgets them. */
  public void commit(Collection<TopicPartition> partitions) {
    Map<TopicPartition, OffsetAndMetadata> some = new HashMap<>();
    partitions.forEach(
        tp -> {
          OffsetAndMetadata o = pending.get(tp);
          if (o != null) {
            some.put(tp, o);
          }
        });
    commit(some);
    partitions.forEach(pending::remove);
    partitions.forEach(asked::remove); // an answer still to come for them is not ours to act on
    partitions.forEach(caps::remove);
  }

  /** Forgets partitions that were lost: their offsets can no longer be committed by us. */
  public void drop(Collection<TopicPartition> partitions) {
    partitions.forEach(pending::remove);
    partitions.forEach(asked::remove);
    partitions.forEach(caps::remove);
  }

  private void commit(Map<TopicPartition, OffsetAndMetadata> wanted) {
    capAtUndelivered();
    Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
    wanted.forEach((tp, o) -> offsets.put(tp, pending.getOrDefault(tp, o)));
    if (offsets.isEmpty()) {
      return;
    }
    for (int attempt = 1; ; attempt++) {
      try {
        asked.putAll(offsets);
        consumer.commitSync(offsets, TIMEOUT);
        offsets.forEach(pending::remove);
        lastCommitMillis = clock.millis();
        return;
      } catch (WakeupException e) {
        // close() woke the consumer to stop the loop; the commit must still happen.
        if (attempt > 1) {
          throw e;
        }
      } catch (RebalanceInProgressException e) {
        // The next poll completes the rebalance; the revocation callback commits these then.
        LOG.info("commit of {} postponed: the group is rebalancing", offsets.keySet());
        return;
      } catch (CommitFailedException e) {
        // This member lost the partitions: their new owner redoes the rest.
        offsets.keySet().forEach(pending::remove);
        refused(offsets, e);
        return;
      } catch (TimeoutException | RetriableCommitFailedException e) {
        LOG.warn("commit of {} did not go through ({}); trying again later", offsets, e.toString());
        return;
      }
    }
  }

  /** No pending offset goes past a record whose forward was neither delivered nor parked. */
  private void capAtUndelivered() {
    for (LadderPublisher.Undelivered u : beforeCommit.run()) {
      caps.merge(u.source(), u.offset(), Math::min);
      pending.computeIfPresent(
          u.source(), (tp, o) -> o.offset() > u.offset() ? new OffsetAndMetadata(u.offset()) : o);
    }
  }

  private void refused(Map<TopicPartition, OffsetAndMetadata> offsets, Exception e) {
    onRefused.run();
    LOG.warn(
        "commit of {} refused ({}); the partitions' new owner redoes those records",
        offsets.keySet(),
        e.getMessage());
  }
}
