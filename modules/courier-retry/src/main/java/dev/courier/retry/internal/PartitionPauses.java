package dev.courier.retry.internal;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.common.TopicPartition;

/**
 * Owns the consumer's pauses, which have two reasons: a handler call in flight (every partition
 * paused while the loop keeps polling to stay in its group) and records held at a tier until they
 * fall due (that partition paused, unless what it holds falls due soon enough to fetch ahead).
 */
public final class PartitionPauses {

  private final Consumer<byte[], byte[]> consumer;
  private final TierWaits waits;

  /** Paused only while a handler call runs (not those waiting for a due time). */
  private final Set<TopicPartition> forCall = new HashSet<>();

  /**
   * Paused until the given time: read again from a record whose forward could not be made, or held
   * at a key-order bound.
   */
  private final Map<TopicPartition, Instant> heldBack = new HashMap<>();

  /** Of those held back, the ones held at a bound ({@link #holdAtBound}). */
  private final Set<TopicPartition> atBound = new HashSet<>();

  /**
   * With key order, how often one poll reads the tiers alone. Kafka's consumer hands out one
   * partition's fetched records before the next one's, so a tier's records came back behind a whole
   * main-topic fetch (256 KiB, thousands of records): while the main topic had a backlog each retry
   * of a blocked key took 70-125 ms instead of its 20 ms delay, one after another for a key with
   * many failing records ({@code OrderedRetryHops}). A poll with the main topic paused returns what
   * the tiers fetched; the main topic's fetched records stay buffered, in order, for the next one.
   */
  static final Duration TIERS_TURN_EVERY = Duration.ofMillis(10);

  private Instant tiersTurnAt = Instant.MIN;

  public PartitionPauses(Consumer<byte[], byte[]> consumer, TierWaits waits) {
    this.consumer = consumer;
    this.waits = waits;
  }

  /** The partition holds records until they fall due: no more is fetched for now. */
  public void hold(TopicPartition tp) {
    consumer.pause(List.of(tp));
  }

  /** The partition's held records ran: fetch it again, if it is still this member's. */
  public void released(TopicPartition tp) {
    if (!waits.waiting(tp) && !heldBack.containsKey(tp) && consumer.assignment().contains(tp)) {
      consumer.resume(List.of(tp));
    }
  }

  /** Pauses the partition until {@code until}, when it is fetched again. */
  public void holdBack(TopicPartition tp, Instant until) {
    heldBack.put(tp, until);
    consumer.pause(List.of(tp));
  }

  /**
   * Holds a partition back at a key-order bound until {@code until}, or until {@link
   * #releaseWithRoom} finds room sooner.
   */
  public void holdAtBound(TopicPartition tp, Instant until) {
    holdBack(tp, until);
    atBound.add(tp);
  }

  /**
   * Resumes the partitions held at a bound that have room again: waiting out the whole hold-back
   * cost a backlog with 10% failing a fifth of its time.
   */
  public void releaseWithRoom(Predicate<TopicPartition> room) {
    atBound.removeIf(
        tp -> {
          if (!heldBack.containsKey(tp)) {
            return true; // released already, or gone
          }
          if (!room.test(tp)) {
            return false;
          }
          heldBack.remove(tp);
          if (!waits.waiting(tp) && consumer.assignment().contains(tp)) {
            consumer.resume(List.of(tp));
          }
          return true;
        });
  }

  /** Resumes the partitions held back whose time is up. */
  public void releaseHeldBack(Instant now) {
    List<TopicPartition> resume = new ArrayList<>();
    heldBack
        .entrySet()
        .removeIf(
            e -> {
              if (now.isBefore(e.getValue())) {
                return false;
              }
              if (!waits.waiting(e.getKey()) && consumer.assignment().contains(e.getKey())) {
                resume.add(e.getKey());
              }
              return true;
            });
    consumer.resume(resume);
  }

  /** Fetches each waiting partition whose held records fall due soon, and pauses the others. */
  public void fetchAhead(Instant now) {
    Set<TopicPartition> paused = consumer.paused();
    Set<TopicPartition> owned = consumer.assignment();
    List<TopicPartition> resume = new ArrayList<>();
    List<TopicPartition> pause = new ArrayList<>();
    for (TopicPartition tp : waits.partitions()) {
      if (!owned.contains(tp)) {
        continue;
      }
      boolean fetch = waits.fetchAhead(tp, now) && !heldBack.containsKey(tp);
      if (fetch && paused.contains(tp)) {
        resume.add(tp);
      } else if (!fetch && !paused.contains(tp)) {
        pause.add(tp);
      }
    }
    consumer.resume(resume);
    consumer.pause(pause);
  }

  /**
   * When the tiers' turn came ({@link #TIERS_TURN_EVERY}), pauses the main topic's partitions for
   * the next poll, which then returns only what the tiers fetched; {@link #resumeAfterCall} ends
   * it.
   *
   * @return whether it is the tiers' turn
   */
  public boolean tiersTurn(Instant now, Predicate<TopicPartition> main) {
    if (now.isBefore(tiersTurnAt)) {
      return false;
    }
    tiersTurnAt = now.plus(TIERS_TURN_EVERY);
    pauseForCall(consumer.assignment().stream().filter(main).toList());
    return true;
  }

  /** Pauses those not paused yet (a waiting partition may be, or be fetched ahead). */
  public void pauseForCall(Collection<TopicPartition> partitions) {
    Set<TopicPartition> paused = consumer.paused();
    List<TopicPartition> pause = new ArrayList<>();
    for (TopicPartition tp : partitions) {
      if (!paused.contains(tp) && forCall.add(tp)) {
        pause.add(tp);
      }
    }
    consumer.pause(pause);
  }

  /** Resumes what the call paused; waiting partitions are paused again before the next poll. */
  public void resumeAfterCall() {
    Set<TopicPartition> owned = consumer.assignment();
    List<TopicPartition> resume =
        forCall.stream().filter(owned::contains).filter(tp -> !heldBack.containsKey(tp)).toList();
    forCall.clear();
    consumer.resume(resume);
  }

  /**
   * Defensive, for a poll with every partition paused: a partition that slipped through unpaused is
   * rewound to its first returned record and paused, so nothing is skipped.
   */
  public void rewind(ConsumerRecords<byte[], byte[]> stray) {
    for (TopicPartition tp : stray.partitions()) {
      consumer.seek(tp, stray.records(tp).get(0).offset());
      pauseForCall(List.of(tp));
    }
  }

  /** The partitions left this member. */
  public void forget(Collection<TopicPartition> partitions) {
    forCall.removeAll(partitions);
    partitions.forEach(heldBack::remove);
    atBound.removeAll(partitions);
  }
}
