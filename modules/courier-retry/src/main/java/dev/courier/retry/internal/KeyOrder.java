package dev.courier.retry.internal;

import dev.courier.retry.OrderingOverflow;
import dev.courier.retry.RetryTopics;
import dev.courier.retry.WaitingOnDeadLetter;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Future;
import java.util.function.Function;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps each key's order through the ladder ({@code retry.ordering=key}). A main-topic record that
 * goes to a tier blocks its key: the key's later main-topic records wait behind it, without a call,
 * their offsets committed once the wait is written down. When the head succeeds (or goes to the DLT
 * with {@code release}) the key drains: the loop hands its waiting records to the handler in order;
 * one that fails for a retry becomes the head. With {@code park}, a head that goes to the DLT takes
 * what waits behind it along.
 *
 * <p>A key's chain is written to {@code <topic>.<group>.retry.blocked} (partition = the main
 * topic's) when it changed, once per commit, before the commit of the records that changed it
 * ({@link #writeChanged()}), and read back when a partition is assigned, so its next owner knows
 * which keys are blocked before its first record. Writes per retried record: one when it blocks its
 * key, one when it resolves (a tombstone when nothing waited), and one per commit in which records
 * joined its wait. A free key's state is a done mark (the highest offset its chain held) until the
 * partition is committed past it, so a record read again after a crash is not called again.
 */
public final class KeyOrder implements OrderHooks, AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(KeyOrder.class);

  /** What key order needs of the ladder's settings. */
  /**
   * @param letterLookBack how long before a partition's last commit its former owner may have
   *     written dead letters of records past that commit
   */
  public record Settings(
      WaitingOnDeadLetter onDeadLetter,
      OrderingOverflow overflow,
      String operationKeyHeader,
      Duration letterLookBack) {}

  private final KeyChains chains;
  private final ChainStore store;
  private final RetryTopics topics;
  private final Settings settings;
  private final OrderMetrics metrics;
  private final Clock clock;

  private final ChainWrites writes;
  private final ChainParking parking;
  private final MainPartitions partitions;
  private final ReleasedLetters released;

  public KeyOrder(
      KeyChains chains,
      ChainStore store,
      LadderPublisher publisher,
      RetryTopics topics,
      Settings settings,
      OrderMetrics metrics,
      Clock clock) {
    this.chains = chains;
    this.store = store;
    this.topics = topics;
    this.settings = settings;
    this.metrics = metrics;
    this.clock = clock;
    this.partitions = new MainPartitions(chains, store, topics, settings.letterLookBack());
    this.writes =
        new ChainWrites(chains, publisher, topics, metrics, clock, partitions::generation);
    this.parking =
        new ChainParking(chains, store, publisher, topics, settings, metrics, clock, writes);
    this.released = new ReleasedLetters(chains, publisher, writes);
    publisher.keyOrder(parking::refusedHead);
  }

  /**
   * What a main-topic record needs before its headers are read: empty when it is handled as usual.
   */
  public Optional<RecordStep> admit(ConsumerRecord<byte[], byte[]> record) {
    TopicPartition tp = new TopicPartition(record.topic(), record.partition());
    if (!partitions.ready(tp)) {
      return Optional.of(new RecordStep.Full()); // which keys are blocked is not known yet
    }
    if (partitions.readAgain(tp, record.offset())) {
      writes.holdOn(tp, record);
      return Optional.empty(); // its forward was not delivered: it is not dealt with
    }
    if (partitions.parkedBefore(tp, record.offset())) {
      return Optional.of(new RecordStep.Seen()); // its former owner dead-lettered it
    }
    return switch (chains.admit(tp, record.key(), record.offset())) {
      case FREE -> {
        // Handled now, its commit waits for its key's last change to be written: a crash before
        // that would have the next owner handle the key's earlier records after it.
        writes.holdOn(tp, record);
        yield Optional.empty();
      }
      case WAIT -> Optional.of(new RecordStep.Follow());
      case SEEN -> Optional.of(new RecordStep.Seen());
      case FULL -> full();
      case OVERFLOW ->
          settings.overflow() == OrderingOverflow.PAUSE ? full() : parking.overflow(record, tp);
    };
  }

  private Optional<RecordStep> full() {
    metrics.overflows.increment();
    return Optional.of(new RecordStep.Full());
  }

  /**
   * What a tier record needs before it is called: nothing, unless its main partition's chains are
   * not read back yet, or it is a copy of a head its key no longer waits for ({@link
   * MainPartitions#tierStep}).
   */
  public Optional<RecordStep> admitTier(ConsumerRecord<byte[], byte[]> record, LadderState state) {
    return partitions.tierStep(record, state);
  }

  @Override
  public boolean waitsNow(ConsumerRecord<byte[], byte[]> record) {
    if (record.key() == null || topics.tierOf(record.topic()) != 0) {
      return false;
    }
    TopicPartition tp = new TopicPartition(record.topic(), record.partition());
    Optional<KeyChain> c = chains.chain(tp, record.key());
    if (c.isEmpty()
        || c.get().head == record.offset()
        || chains.releasing(tp, record.key(), record.offset()).isPresent()) {
      return false; // free, its own chain's head, or released in its turn
    }
    if (c.get().waiting.stream().noneMatch(w -> w.offset() == record.offset())) {
      write(chains.insertWaiting(tp, record), record);
    }
    return true;
  }

  @Override
  public void follow(ConsumerRecord<byte[], byte[]> record) {
    TopicPartition tp = new TopicPartition(record.topic(), record.partition());
    if (chains.chain(tp, record.key()).isEmpty()
        && settings.onDeadLetter() == WaitingOnDeadLetter.PARK) {
      Optional<String> blocker = chains.parkedBlocker(tp, record.key());
      if (blocker.isPresent()) {
        // It was to wait behind a chain that went to the DLT before it joined: it follows.
        parking.parkLate(record, blocker.get());
        write(chains.doneAlso(tp, record.key(), record.offset()), record);
        return;
      }
    }
    write(chains.follow(tp, record, clock.instant()), record);
  }

  @Override
  public void seen(ConsumerRecord<byte[], byte[]> record) {
    metrics.seen.increment();
    TopicPartition tp = new TopicPartition(record.topic(), record.partition());
    if (topics.tierOf(record.topic()) != 0) {
      return; // a copy of a resolved head: its key's state is as it was
    }
    // Read again because its commit did not happen: its chain's state may not have been written.
    Optional<KeyChain> c = chains.chain(tp, record.key());
    if (c.isPresent()) {
      write(c.get(), record);
    } else {
      writes.holdOn(tp, record);
    }
  }

  @Override
  public void retrying(ConsumerRecord<byte[], byte[]> record, LadderState state, int tier) {
    if (record.key() == null || tier != 0) {
      return; // a head climbing the ladder leaves its chain as it is
    }
    TopicPartition tp = new TopicPartition(record.topic(), record.partition());
    Optional<KeyChain> blocked = chains.block(tp, record.key(), record.offset(), clock.instant());
    if (blocked.isPresent()) {
      write(blocked.get(), record);
      return;
    }
    // Its key waits behind another head already (a step prepared before that head failed): it
    // waits in line too, and its copy in the tier is skipped when it comes.
    KeyChain c = chains.insertWaiting(tp, record);
    LOG.warn(
        "{}: its key waits behind {}; it waits too", Outcomes.coordinates(record), c.blocker());
    write(c, record);
  }

  @Override
  public void succeeded(ConsumerRecord<byte[], byte[]> record, LadderState state, int tier) {
    if (record.key() == null) {
      return;
    }
    TopicPartition tp = mainPartition(state);
    Optional<KeyChain> headed = chains.headed(tp, record.key(), state.originalOffset());
    if (headed.isPresent()) {
      chains.drain(headed.get());
      write(headed.get(), record);
      return;
    }
    releasedOneDone(tp, record.key(), state.originalOffset());
  }

  /** A record released from behind its key's head is done; the key is free once none is left. */
  private void releasedOneDone(TopicPartition tp, byte[] key, long offset) {
    chains
        .releasing(tp, key, offset)
        .ifPresent(
            c -> {
              chains.released(c);
              if (chains.gone(c)) {
                write(c, null);
              }
            });
  }

  @Override
  public void deadLettered(
      ConsumerRecord<byte[], byte[]> record,
      LadderState state,
      int tier,
      Hop.Failure failure,
      Future<RecordMetadata> letter) {
    if (record.key() == null) {
      return;
    }
    TopicPartition tp = mainPartition(state);
    Optional<KeyChain> headed = chains.headed(tp, record.key(), state.originalOffset());
    if (headed.isPresent()) {
      parking.headDeadLettered(headed.get(), record, letter);
      return;
    }
    // A waiting record released and dead-lettered at its first attempt: the rest go on once Kafka
    // has its letter (one it does not take puts the record back first in line).
    chains
        .releasing(tp, record.key(), state.originalOffset())
        .ifPresent(c -> released.refused(c, state.originalOffset(), letter));
  }

  /**
   * A forward that was neither delivered nor parked, if it was a released record's (below what is
   * committed): it goes back first in its key's line instead of its partition being read again.
   *
   * @return whether key order took it
   */
  public boolean undelivered(Undelivered u) {
    return topics.tierOf(u.source().topic()) == 0 && released.undelivered(u);
  }

  /**
   * At the loop's turn, before it polls: resolves heads whose forward was parked instead, parks
   * what waits behind heads that went to the DLT, and writes again state whose write was lost.
   */
  public void catchUp() {
    partitions.catchUp().forEach(this::headParkedBefore);
    resolveRefused();
    parking.parkWaiting();
    released.delivered();
  }

  /**
   * Resolves the heads whose forward to a tier was parked in the DLT instead, as heads that went to
   * the DLT: their keys drain, or what waits behind them is parked.
   *
   * @return whether there were any
   */
  public boolean resolveRefused() {
    return parking.resolveRefused();
  }

  /**
   * Per partition, the earliest record whose key's resolution is not written yet: a head whose
   * forward to a tier was parked instead, not resolved yet, or a head in the DLT whose waiting
   * records are not all parked yet. Nothing at or past it may be committed: the key's state still
   * says it waits behind that head, and a next owner of the key (after a rebalance or a crash)
   * would wait for a head that no tier brings back. Read again instead, the head is handled again.
   */
  public Map<TopicPartition, Long> unresolved() {
    return parking.unresolved();
  }

  /**
   * After a poll, before its commit: writes the keys that changed if their turn came ({@link
   * ChainWrites#WRITE_EVERY}); per partition, the earliest record whose key's change is still not
   * written (nothing at or past it is committed).
   */
  public Map<TopicPartition, Long> writeDue() {
    writes.writeDue();
    return writes.unwritten();
  }

  /**
   * Before a commit: writes the state of every key whose chain changed since its last write (its
   * done mark, or a tombstone, for a key now free), acknowledged with the ladder's forwards.
   */
  public void writeChanged() {
    writes.writeChanged();
  }

  /** Whether a key's state changed since it was last written. */
  public boolean changedSinceWritten() {
    return writes.changedSinceWritten();
  }

  /** Offsets committed: done marks below them are no longer needed. */
  public void committed(Map<TopicPartition, Long> offsets) {
    writes.committed(offsets);
  }

  /**
   * A main-topic record is read again because its forward was not delivered: it is handled again
   * when it comes, not taken as seen. The done marks stay: what they cover was dealt with, and
   * calling it again would hand the key's records to the handler a second time, out of order.
   */
  public void readAgain(TopicPartition tp, long offset) {
    partitions.comesAgain(tp, offset);
  }

  /** The draining keys with records in line, each with its waiting records read. */
  public List<Released> releasable() {
    List<Released> out = new ArrayList<>();
    for (KeyChain c : chains.draining()) {
      parking.lineUp(c).ifPresent(records -> out.add(new Released(c, records)));
    }
    return out;
  }

  /** A draining key and its waiting records, in order. */
  public record Released(KeyChain chain, List<ConsumerRecord<byte[], byte[]>> records) {}

  /** Partitions assigned: their blocked keys are read back before their first record. */
  public void assigned(
      Collection<TopicPartition> assigned,
      Function<TopicPartition, Optional<OffsetAndMetadata>> commits,
      int generation) {
    partitions.assigned(assigned, commits, generation).forEach(this::headParkedBefore);
  }

  /**
   * A chain read back whose head a former owner dead-lettered before it could say so: resolved now
   * as such, and its head's copy in the tier is not called when it comes (its key no longer waits
   * for it).
   */
  private void headParkedBefore(KeyChain c) {
    chains
        .chain(c.tp, c.key.bytes())
        .filter(restored -> restored.head == c.head)
        .ifPresent(restored -> parking.headDeadLettered(restored, null, null));
  }

  /**
   * Partitions being revoked: the dead letters of their parked chains are answered before their
   * next owner reads the DLT ({@link ChainParking#awaitLetters}).
   */
  public void revoking(Collection<TopicPartition> partitions) {
    parking.awaitLetters(partitions);
  }

  /** Partitions revoked or lost: their keys are their next owner's, who reads them back. */
  public void forget(Collection<TopicPartition> gone) {
    chains.forget(gone);
    partitions.forget(gone);
    released.forget(gone);
    parking.forget(gone);
    writes.forget(gone);
  }

  /** Whether a partition held at a bound has room again ({@link MainPartitions#roomAgain}). */
  public boolean roomAgain(TopicPartition tp) {
    return partitions.roomAgain(tp);
  }

  public void updateGauges(Instant now) {
    metrics.update(chains, now);
  }

  /** Closes the reader of blocked keys. */
  @Override
  public void close() {
    store.close();
  }

  private static TopicPartition mainPartition(LadderState state) {
    return new TopicPartition(state.originalTopic(), state.originalPartition());
  }

  /** The chain's state is written before the next commit (and before {@code source}'s). */
  private void write(KeyChain c, ConsumerRecord<byte[], byte[]> source) {
    writes.changed(c, source);
  }
}
