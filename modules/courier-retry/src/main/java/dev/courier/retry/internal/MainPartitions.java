package dev.courier.retry.internal;

import dev.courier.core.CourierHeaders;
import dev.courier.core.internal.CommitFloor;
import dev.courier.retry.RetryTopics;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.function.Function;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Key order's main-topic partitions: which this member owns, whose blocked keys are read back (a
 * partition whose keys cannot be read yet is not read, nor are its tiers' records handled, until
 * they are), and which of their records are read again because their forward was not delivered.
 */
final class MainPartitions {

  private static final Logger LOG = LoggerFactory.getLogger(MainPartitions.class);

  private final KeyChains chains;
  private final ChainStore store;
  private final RetryTopics topics;

  private final Set<TopicPartition> owned = new HashSet<>();

  /** Owned partitions whose blocked keys could not be read yet. */
  private final Set<TopicPartition> unrestored = new LinkedHashSet<>();

  /**
   * Records read again because their forward was not delivered: handled again, never taken as seen,
   * although their key's chain may have held later records since.
   */
  private final Map<TopicPartition, Set<Long>> again = new HashMap<>();

  /**
   * Records past each partition's last commit that its former owner dead-lettered already: not
   * handled, nor parked, again.
   */
  private final Map<TopicPartition, Set<Long>> parkedAhead = new HashMap<>();

  /**
   * The group generation each owned partition was given in: its mark, and the stamp on every write
   * of its keys' state ({@link ChainStore#restore}).
   */
  private final Map<TopicPartition, Integer> generations = new HashMap<>();

  /** Each owned partition's commit as read at its assignment (for a restore tried again). */
  private final Map<TopicPartition, Optional<OffsetAndMetadata>> commits = new HashMap<>();

  private final Duration letterLookBack;

  MainPartitions(KeyChains chains, ChainStore store, RetryTopics topics, Duration letterLookBack) {
    this.chains = chains;
    this.store = store;
    this.topics = topics;
    this.letterLookBack = letterLookBack;
  }

  /**
   * Whether the record, past the last commit, was dead-lettered by its former owner. Asked as often
   * as it is read: when the first ask took it off the list, a record prepared again (its run broken
   * by an earlier call's failure) was called and parked a second time, the likely path of {@code
   * OrderedRetryWorkersIT}'s "bad-357 parked 2 times" of 2026-12-07 (the new owner read the DLT at
   * its assignment, yet called the record again).
   */
  boolean parkedBefore(TopicPartition tp, long offset) {
    Set<Long> parked = parkedAhead.get(tp);
    return parked != null && parked.contains(offset);
  }

  /** Whether the partition's records (and its tiers') may be handled: owned, its keys read back. */
  boolean ready(TopicPartition main) {
    return owned.contains(main) && !unrestored.contains(main);
  }

  /**
   * What a tier record needs before it is called: nothing, unless its main partition's chains are
   * not read back yet (it waits for them), or it is a copy of a head its key no longer waits for (a
   * head read again from the main topic after a crash and resolved there, or a second copy of one):
   * then it is not called, as a later record of its key may have been handled since. A copy that is
   * called marks its head so, and the head read again from the main topic after it is not handled
   * there too (a new owner whose tier copy came before its main-topic read reached the head).
   */
  Optional<RecordStep> tierStep(ConsumerRecord<byte[], byte[]> record, LadderState state) {
    TopicPartition main = new TopicPartition(state.originalTopic(), state.originalPartition());
    if (!ready(main)) {
      return Optional.of(new RecordStep.Full());
    }
    if (record.key() == null || record.headers().lastHeader(CourierHeaders.ORDERING) == null) {
      return Optional.empty(); // forwarded without key order: nothing waits for it
    }
    if (chains.headCopyTaken(main, record.key(), state.originalOffset()).isPresent()) {
      return Optional.empty();
    }
    LOG.info(
        "{}-{}@{}: a copy of {}@{}, whose key no longer waits for it: not called",
        record.topic(),
        record.partition(),
        record.offset(),
        main,
        state.originalOffset());
    return Optional.of(new RecordStep.Seen());
  }

  /**
   * Whether a partition held at a bound has room again: a main partition with a tenth of its bounds
   * free ({@link KeyChains#roomAgain}) and its keys read back, a tier whose main partition's keys
   * are read back.
   */
  boolean roomAgain(TopicPartition tp) {
    if (topics.tierOf(tp.topic()) == 0) {
      return ready(tp) && chains.roomAgain(tp);
    }
    return ready(new TopicPartition(topics.main(), tp.partition()));
  }

  /** Whether the record is read again because its forward was not delivered (asked once). */
  boolean readAgain(TopicPartition tp, long offset) {
    Set<Long> undone = again.get(tp);
    if (undone == null || !undone.remove(offset)) {
      return false;
    }
    if (undone.isEmpty()) {
      again.remove(tp);
    }
    return true;
  }

  /** A record's forward was not delivered: it is read again from its partition. */
  void comesAgain(TopicPartition tp, long offset) {
    if (topics.tierOf(tp.topic()) == 0) {
      again.computeIfAbsent(tp, t -> new HashSet<>()).add(offset);
    }
  }

  /**
   * Partitions assigned: their blocked keys are read back before their first record.
   *
   * @return chains read back whose head is in the DLT already: the caller resolves them
   */
  List<KeyChain> assigned(
      Collection<TopicPartition> partitions,
      Function<TopicPartition, Optional<OffsetAndMetadata>> committed,
      int generation) {
    List<KeyChain> headsParked = new ArrayList<>();
    for (TopicPartition tp : partitions) {
      if (topics.tierOf(tp.topic()) == 0) {
        owned.add(tp);
        generations.put(tp, generation);
        commits.put(tp, committed.apply(tp));
        restore(tp, headsParked);
      }
    }
    return headsParked;
  }

  /**
   * At the loop's turn: tries again the partitions whose keys could not be read.
   *
   * @return as {@link #assigned}
   */
  List<KeyChain> catchUp() {
    List<KeyChain> headsParked = new ArrayList<>();
    List.copyOf(unrestored).forEach(tp -> restore(tp, headsParked));
    return headsParked;
  }

  /** The generation the partition was given in; -1 when not owned. */
  int generation(TopicPartition tp) {
    return generations.getOrDefault(tp, -1);
  }

  void forget(Collection<TopicPartition> partitions) {
    List<TopicPartition> main =
        partitions.stream().filter(tp -> topics.tierOf(tp.topic()) == 0).toList();
    if (!main.isEmpty()) {
      store.released(main);
    }
    owned.removeAll(partitions);
    partitions.forEach(generations::remove);
    unrestored.removeAll(partitions);
    partitions.forEach(again::remove);
    partitions.forEach(parkedAhead::remove);
    partitions.forEach(commits::remove);
  }

  /**
   * What the DLT holds of the chains read back is parked already: a former owner killed between a
   * record's dead letter and its key's next state left it pending there. Waiting records with a
   * letter leave the line; chains whose head has one are returned, to be resolved as heads that
   * went to the DLT. Without this a record was handled after it was parked, or parked twice.
   */
  private List<KeyChain> dropParked(TopicPartition tp, List<KeyChain> restored) {
    Optional<OffsetAndMetadata> commit = commits.getOrDefault(tp, Optional.empty());
    // Letters of records past the commit were written after the run before it: from its time on.
    Instant since =
        commit
            .flatMap(o -> boxed(CommitFloor.committedAt(o)))
            .map(at -> Instant.ofEpochMilli(at).minus(letterLookBack))
            .orElse(null);
    for (KeyChain c : restored) {
      if (!c.draining() || !c.waiting.isEmpty()) {
        since = since == null || c.since.isBefore(since) ? c.since : since;
      }
    }
    if (since == null) {
      // Never committed: a former owner may still have parked records before its first commit
      // (killed within a commit interval of its start), so the whole DLT is looked at; it holds
      // little while the group has no commit on the partition.
      since = Instant.EPOCH;
    }
    Set<Long> parked = store.parked(tp, since);
    long from = commit.map(OffsetAndMetadata::offset).orElse(0L);
    Set<Long> ahead = new HashSet<>();
    parked.stream().filter(o -> o >= from).forEach(ahead::add);
    parkedAhead.put(tp, ahead);
    List<KeyChain> headsParked = new ArrayList<>();
    for (KeyChain c : restored) {
      if (c.waiting.removeIf(w -> parked.contains(w.offset()))) {
        LOG.info("{}: records waiting behind key '{}' are in the DLT already", tp, c.key);
      }
      if (c.head >= 0 && parked.contains(c.head)) {
        headsParked.add(c);
      }
    }
    return headsParked;
  }

  /** The first keys read back, each with its head and first waiting record, for the log. */
  private static String described(List<KeyChain> restored) {
    StringBuilder b = new StringBuilder();
    restored.stream()
        .filter(c -> !c.draining() || !c.waiting.isEmpty())
        .limit(10)
        .forEach(
            c ->
                b.append(b.length() == 0 ? "" : ", ")
                    .append(new String(c.key.bytes(), java.nio.charset.StandardCharsets.UTF_8))
                    .append(" head ")
                    .append(c.head)
                    .append(c.waiting.isEmpty() ? "" : " then " + c.waiting.peekFirst().offset())
                    .append(" (" + c.waiting.size() + " waiting)"));
    return b.toString();
  }

  private static Optional<Long> boxed(OptionalLong value) {
    return value.isPresent() ? Optional.of(value.getAsLong()) : Optional.empty();
  }

  private void restore(TopicPartition tp, List<KeyChain> headsParked) {
    List<KeyChain> restored;
    try {
      restored = store.restore(tp, generation(tp));
      headsParked.addAll(dropParked(tp, restored));
    } catch (KafkaException e) {
      if (unrestored.add(tp)) {
        LOG.warn(
            "{}: cannot read its blocked keys from {} yet ({}); it is not read until they are",
            tp,
            topics.blocked(),
            e.toString());
      }
      return;
    }
    unrestored.remove(tp);
    chains.restore(tp, restored);
    if (chains.blockedKeys(tp) > 0) {
      LOG.info(
          "{}: {} blocked key(s), {} record(s) waiting, read back from {} in generation {}: {}",
          tp,
          chains.blockedKeys(tp),
          chains.waitingRecords(tp),
          topics.blocked(),
          generation(tp),
          described(restored));
    }
  }
}
