package dev.courier.retry.internal;

import dev.courier.retry.Decision;
import dev.courier.retry.OrderingOverflow;
import dev.courier.retry.RetryTopics;
import dev.courier.retry.WaitingOnDeadLetter;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.KafkaException;
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
 * <p>A key's chain is written to {@code <topic>.retry.blocked} (partition = the main topic's) when
 * it changed, once per commit, before the commit of the records that changed it ({@link
 * #writeChanged()}), and read back when a partition is assigned, so its next owner knows which keys
 * are blocked before its first record. Writes per retried record: one when it blocks its key, one
 * when it resolves (a tombstone when nothing waited), and one per commit in which records joined
 * its wait. A free key's state is a done mark (the highest offset its chain held) until the
 * partition is committed past it, so a record read again after a crash is not called again.
 */
public final class KeyOrder implements OrderHooks, AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(KeyOrder.class);

  /** What key order needs of the ladder's settings. */
  public record Settings(
      WaitingOnDeadLetter onDeadLetter, OrderingOverflow overflow, String operationKeyHeader) {}

  private final KeyChains chains;
  private final ChainStore store;
  private final RetryTopics topics;
  private final Settings settings;
  private final OrderMetrics metrics;
  private final Clock clock;

  /** Heads whose forward to a tier was parked instead: resolved at the loop's next turn. */
  private final List<Map.Entry<ConsumerRecord<byte[], byte[]>, LadderState>> refusedHeads =
      new ArrayList<>();

  /** Main-topic partitions whose blocked keys could not be read yet: not read until they are. */
  private final Set<TopicPartition> unrestored = new LinkedHashSet<>();

  private final ChainWrites writes;
  private final ChainParking parking;

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
    this.writes = new ChainWrites(chains, publisher, topics, metrics);
    this.parking =
        new ChainParking(chains, store, publisher, topics, settings, metrics, clock, writes);
    publisher.refusals((record, state) -> refusedHeads.add(Map.entry(record, state)));
  }

  /**
   * What a main-topic record needs before its headers are read: empty when it is handled as usual.
   */
  public Optional<RecordStep> admit(ConsumerRecord<byte[], byte[]> record) {
    TopicPartition tp = new TopicPartition(record.topic(), record.partition());
    if (unrestored.contains(tp)) {
      return Optional.of(new RecordStep.Full()); // which keys are blocked is not known yet
    }
    return switch (chains.admit(tp, record.key(), record.offset())) {
      case FREE -> Optional.empty();
      case WAIT -> Optional.of(new RecordStep.Follow());
      case SEEN -> Optional.of(new RecordStep.Seen());
      case FULL -> full();
      case OVERFLOW ->
          settings.overflow() == OrderingOverflow.PAUSE ? full() : overflow(record, tp);
    };
  }

  private Optional<RecordStep> full() {
    metrics.overflows.increment();
    return Optional.of(new RecordStep.Full());
  }

  private Optional<RecordStep> overflow(ConsumerRecord<byte[], byte[]> record, TopicPartition tp) {
    metrics.overflows.increment();
    KeyChains.Chain c = chains.chain(tp, record.key()).orElseThrow();
    return Optional.of(
        new RecordStep.Park(
            LadderState.of(record, settings.operationKeyHeader()),
            Hop.Failure.behind(
                Decision.DeadLetter.ORDERING_OVERFLOW,
                c.blocker(),
                clock.instant(),
                "not executed: its key waits behind "
                    + c.blocker()
                    + " and "
                    + tp
                    + " already has "
                    + chains.waitingRecords(tp)
                    + " records waiting (retry.ordering.max.waiting.records)")));
  }

  @Override
  public void follow(ConsumerRecord<byte[], byte[]> record) {
    TopicPartition tp = new TopicPartition(record.topic(), record.partition());
    write(chains.follow(tp, record, clock.instant()), record);
  }

  @Override
  public void seen(ConsumerRecord<byte[], byte[]> record) {
    metrics.seen.increment();
    // Read again because its commit did not happen: its chain's state may not have been written.
    chains
        .chain(new TopicPartition(record.topic(), record.partition()), record.key())
        .ifPresent(c -> write(c, record));
  }

  @Override
  public void retrying(ConsumerRecord<byte[], byte[]> record, LadderState state, int tier) {
    if (record.key() == null || tier != 0) {
      return; // a head climbing the ladder leaves its chain as it is
    }
    TopicPartition tp = new TopicPartition(record.topic(), record.partition());
    write(chains.block(tp, record.key(), record.offset(), clock.instant()), record);
  }

  @Override
  public void succeeded(ConsumerRecord<byte[], byte[]> record, LadderState state, int tier) {
    if (record.key() == null) {
      return;
    }
    TopicPartition tp = mainPartition(state);
    Optional<KeyChains.Chain> headed = chains.headed(tp, record.key(), state.originalOffset());
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
      ConsumerRecord<byte[], byte[]> record, LadderState state, int tier, Hop.Failure failure) {
    if (record.key() == null) {
      return;
    }
    TopicPartition tp = mainPartition(state);
    Optional<KeyChains.Chain> headed = chains.headed(tp, record.key(), state.originalOffset());
    if (headed.isPresent()) {
      headDeadLettered(headed.get(), record);
      return;
    }
    // A waiting record released and dead-lettered at its first attempt: the rest go on.
    releasedOneDone(tp, record.key(), state.originalOffset());
  }

  private void headDeadLettered(KeyChains.Chain c, ConsumerRecord<byte[], byte[]> record) {
    if (settings.onDeadLetter() == WaitingOnDeadLetter.RELEASE || c.waiting.isEmpty()) {
      chains.drain(c);
      write(c, record);
    } else {
      parking.park(c, record);
    }
  }

  /**
   * At the loop's turn, before it polls: resolves heads whose forward was parked instead, parks
   * what waits behind heads that went to the DLT, and writes again state whose write was lost.
   */
  public void catchUp() {
    if (!unrestored.isEmpty()) {
      assigned(List.copyOf(unrestored));
    }
    resolveRefused();
    parking.parkWaiting();
  }

  /**
   * Resolves the heads whose forward to a tier was parked in the DLT instead, as heads that went to
   * the DLT: their keys drain, or what waits behind them is parked.
   *
   * @return whether there were any
   */
  public boolean resolveRefused() {
    if (refusedHeads.isEmpty()) {
      return false;
    }
    List<Map.Entry<ConsumerRecord<byte[], byte[]>, LadderState>> refused =
        List.copyOf(refusedHeads);
    refusedHeads.clear();
    for (Map.Entry<ConsumerRecord<byte[], byte[]>, LadderState> e : refused) {
      ConsumerRecord<byte[], byte[]> r = e.getKey();
      if (r.key() != null) {
        chains
            .headed(mainPartition(e.getValue()), r.key(), e.getValue().originalOffset())
            .ifPresent(c -> headDeadLettered(c, r));
      }
    }
    return true;
  }

  /**
   * Per partition, the earliest record whose key's resolution is not written yet: a head whose
   * forward to a tier was parked instead, not resolved yet, or a head in the DLT whose waiting
   * records are not all parked yet. Nothing at or past it may be committed: the key's state still
   * says it waits behind that head, and a next owner of the key (after a rebalance or a crash)
   * would wait for a head that no tier brings back. Read again instead, the head is handled again.
   */
  public Map<TopicPartition, Long> unresolved() {
    Map<TopicPartition, Long> held = new HashMap<>();
    for (Map.Entry<ConsumerRecord<byte[], byte[]>, LadderState> e : refusedHeads) {
      hold(held, e.getKey());
    }
    parking.heads().forEach(r -> hold(held, r));
    return held;
  }

  private static void hold(Map<TopicPartition, Long> held, ConsumerRecord<byte[], byte[]> r) {
    if (r.key() != null) {
      held.merge(new TopicPartition(r.topic(), r.partition()), r.offset(), Math::min);
    }
  }

  /**
   * Before a commit: writes the state of every key whose chain changed since its last write (its
   * done mark, or a tombstone, for a key now free), acknowledged with the ladder's forwards.
   */
  public void writeChanged() {
    writes.writeChanged();
  }

  /** Offsets committed: done marks below them are no longer needed. */
  public void committed(Map<TopicPartition, Long> offsets) {
    writes.committed(offsets);
  }

  /** A partition is read again from {@code offset}: done marks at or after it no longer hold. */
  public void readAgainFrom(TopicPartition tp, long offset) {
    writes.readAgainFrom(tp, offset);
  }

  /** The draining keys with records in line, each with its waiting records read. */
  public List<Released> releasable() {
    List<Released> out = new ArrayList<>();
    for (KeyChains.Chain c : chains.draining()) {
      parking.lineUp(c).ifPresent(records -> out.add(new Released(c, records)));
    }
    return out;
  }

  /** A draining key and its waiting records, in order. */
  public record Released(KeyChains.Chain chain, List<ConsumerRecord<byte[], byte[]>> records) {}

  /** Partitions assigned: their blocked keys are read back before their first record. */
  public void assigned(Collection<TopicPartition> partitions) {
    for (TopicPartition tp : partitions) {
      if (topics.tierOf(tp.topic()) != 0) {
        continue;
      }
      List<KeyChains.Chain> restored;
      try {
        restored = store.restore(tp);
      } catch (KafkaException e) {
        if (unrestored.add(tp)) {
          LOG.warn(
              "{}: cannot read its blocked keys from {} yet ({}); it is not read until they are",
              tp,
              topics.blocked(),
              e.toString());
        }
        continue;
      }
      unrestored.remove(tp);
      chains.restore(tp, restored);
      if (chains.blockedKeys(tp) > 0) {
        LOG.info(
            "{}: {} blocked key(s), {} record(s) waiting, read back from {}",
            tp,
            chains.blockedKeys(tp),
            chains.waitingRecords(tp),
            topics.blocked());
      }
    }
  }

  /** Partitions revoked or lost: their keys are their next owner's, who reads them back. */
  public void forget(Collection<TopicPartition> partitions) {
    chains.forget(partitions);
    unrestored.removeAll(partitions);
    parking.forget(partitions);
    writes.forget(partitions);
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
  private void write(KeyChains.Chain c, ConsumerRecord<byte[], byte[]> source) {
    writes.changed(c, source);
  }
}
