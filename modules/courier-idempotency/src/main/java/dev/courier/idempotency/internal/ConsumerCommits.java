package dev.courier.idempotency.internal;

import io.micrometer.core.instrument.Counter;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.consumer.CommitFailedException;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.RebalanceInProgressException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The idempotent consumer's offsets: those of records done in the database and not committed yet,
 * committed without waiting after each poll, and committed and waited for before partitions are
 * given up and before the consumer closes. A commit the group refuses is no error: the partition's
 * new owner gets the records again and the store deduplicates them.
 */
public final class ConsumerCommits {

  private static final Logger LOG = LoggerFactory.getLogger(ConsumerCommits.class);

  private final Consumer<?, ?> consumer;
  private final Counter refusedCounter;
  private final Map<TopicPartition, OffsetAndMetadata> pending = new HashMap<>();

  /** Offsets committed without waiting that the broker has not confirmed yet. */
  private final Map<TopicPartition, OffsetAndMetadata> unconfirmed = new HashMap<>();

  /** The newest offset asked for per partition: an older one that failed is not put back. */
  private final Map<TopicPartition, OffsetAndMetadata> asked = new HashMap<>();

  private long commits;
  private long refused;

  public ConsumerCommits(Consumer<?, ?> consumer, Counter refusedCounter) {
    this.consumer = consumer;
    this.refusedCounter = refusedCounter;
  }

  /** Everything before {@code next} in the partition is done. */
  public void done(TopicPartition partition, long next) {
    pending.put(partition, new OffsetAndMetadata(next));
  }

  public boolean hasPending() {
    return !pending.isEmpty();
  }

  public long commits() {
    return commits;
  }

  public long refused() {
    return refused;
  }

  /**
   * Commits the offsets of what is done without waiting: the next poll's database work overlaps the
   * broker's answer, which a synchronous commit made the loop wait for on every batch. What the
   * broker has not confirmed yet is committed again, synchronously, when partitions are taken away
   * and when the consumer closes; a commit that failed for a passing reason goes with the next one.
   */
  public void commitAsync() {
    if (pending.isEmpty()) {
      return;
    }
    Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>(pending);
    pending.clear();
    unconfirmed.putAll(offsets);
    asked.putAll(offsets);
    consumer.commitAsync(offsets, (committed, e) -> onCommitted(offsets, e));
  }

  /**
   * Runs on the polling thread, in a later poll or commit. A commit that failed for a passing
   * reason puts its offsets back only where they are still the newest asked for and the partition
   * is still this member's: an older commit's failure, answered after a newer one was sent, must
   * not move the group's position backwards.
   */
  private void onCommitted(Map<TopicPartition, OffsetAndMetadata> offsets, Exception e) {
    offsets.forEach(unconfirmed::remove);
    if (e == null) {
      commits++;
    } else if (e instanceof CommitFailedException || e instanceof RebalanceInProgressException) {
      // The partition moved while we worked: its new owner redelivers, and the store dedupes.
      refused(offsets.keySet(), e);
    } else {
      LOG.debug("offset commit of {} failed ({}); it goes with the next", offsets, e.toString());
      Set<TopicPartition> owned = consumer.assignment();
      offsets.forEach(
          (tp, o) -> {
            if (owned.contains(tp) && o.equals(asked.get(tp))) {
              pending.putIfAbsent(tp, o);
            }
          });
    }
  }

  /** Commits, and waits for, everything done in these partitions: before they are given up. */
  public void commitNow(Collection<TopicPartition> partitions) {
    Map<TopicPartition, OffsetAndMetadata> done = new HashMap<>();
    for (TopicPartition partition : partitions) {
      OffsetAndMetadata sent = unconfirmed.remove(partition);
      OffsetAndMetadata later = pending.remove(partition);
      OffsetAndMetadata offset = later != null ? later : sent;
      if (offset != null) {
        done.put(partition, offset);
      }
    }
    partitions.forEach(asked::remove); // an answer still to come for them is not acted on
    if (done.isEmpty()) {
      return;
    }
    try {
      consumer.commitSync(done);
      commits++;
    } catch (CommitFailedException | RebalanceInProgressException e) {
      refused(done.keySet(), e);
    } catch (RuntimeException e) {
      LOG.warn("commit of {} failed: {}", done.keySet(), e.toString());
    }
  }

  /** Commits, and waits for, everything done: before the consumer closes. */
  public void commitAllNow() {
    Set<TopicPartition> done = new HashSet<>(unconfirmed.keySet());
    done.addAll(pending.keySet());
    commitNow(done);
  }

  /** The partitions were lost: their offsets can no longer be committed by this member. */
  public void drop(Collection<TopicPartition> partitions) {
    partitions.forEach(
        partition -> {
          pending.remove(partition);
          unconfirmed.remove(partition);
          asked.remove(partition);
        });
  }

  private void refused(Collection<TopicPartition> partitions, Exception e) {
    refused++;
    refusedCounter.increment();
    LOG.warn(
        "offset commit of {} refused ({}); the new owner will deduplicate",
        partitions,
        e.toString());
  }
}
