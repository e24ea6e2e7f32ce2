package dev.courier.idempotency.internal;

import dev.courier.core.internal.CommitFloor;
import io.micrometer.core.instrument.Counter;
import java.time.Duration;
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

  /** No partition's committed offset moves back ({@link CommitFloor}). */
  private final CommitFloor floor;

  private long commits;
  private long refused;

  /**
   * @param floorTimeout how long reading the group's committed offsets at assignment may take
   */
  public ConsumerCommits(Consumer<?, ?> consumer, Counter refusedCounter, Duration floorTimeout) {
    this.consumer = consumer;
    this.refusedCounter = refusedCounter;
    this.floor = new CommitFloor(floorTimeout);
  }

  /** Partitions assigned: each one's floor is what the group committed, read now. */
  public void assigned(Collection<TopicPartition> partitions) {
    floor.assigned(consumer, partitions);
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
    // A partition read again from before what is committed (records re-read after a transient
    // failure) stays where it is until it passes its floor again.
    Map<TopicPartition, OffsetAndMetadata> offsets =
        new HashMap<>(floor.forward(consumer, pending));
    offsets.forEach((tp, o) -> pending.remove(tp, o));
    if (offsets.isEmpty()) {
      return;
    }
    unconfirmed.putAll(offsets);
    asked.putAll(offsets);
    floor.asked(offsets);
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
      floor.committed(offsets);
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
    done = floor.forward(consumer, done);
    if (done.isEmpty()) {
      return;
    }
    try {
      floor.asked(done);
      consumer.commitSync(done);
      floor.committed(done);
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

  /**
   * The partitions were lost, or handed over after {@link #commitNow}: their offsets can no longer
   * be committed by this member.
   */
  public void drop(Collection<TopicPartition> partitions) {
    partitions.forEach(
        partition -> {
          pending.remove(partition);
          unconfirmed.remove(partition);
          asked.remove(partition);
        });
    floor.forget(partitions);
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
