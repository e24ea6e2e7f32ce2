package dev.courier.retry.internal;

import dev.courier.retry.Decision;
import dev.courier.retry.OrderingOverflow;
import dev.courier.retry.RetryTopics;
import dev.courier.retry.WaitingOnDeadLetter;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Future;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
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

  /** How long a turn of the loop waits for a parked chain's dead letters before it goes on. */
  private static final Duration PARK_ANSWER = Duration.ofSeconds(2);

  /** What key order needs of the ladder's settings. */
  public record Settings(
      WaitingOnDeadLetter onDeadLetter, OrderingOverflow overflow, String operationKeyHeader) {}

  private final KeyChains chains;
  private final ChainStore store;
  private final LadderPublisher publisher;
  private final RetryTopics topics;
  private final Settings settings;
  private final OrderMetrics metrics;
  private final Clock clock;

  /** Heads whose forward to a tier was parked instead: resolved at the loop's next turn. */
  private final List<Map.Entry<ConsumerRecord<byte[], byte[]>, LadderState>> refusedHeads =
      new ArrayList<>();

  /**
   * Chains whose waiting records go to the DLT as soon as they can be read, each with the record
   * whose resolution parks them (its commit waits for the chain's tombstone).
   */
  private final Map<KeyChains.Chain, ConsumerRecord<byte[], byte[]>> toPark = new LinkedHashMap<>();

  /**
   * Parked chains whose dead letters are on their way: the chain goes (and its done mark is
   * written) only once Kafka answered them, so a crash before then parks them again rather than
   * losing them behind a mark.
   */
  private final Map<KeyChains.Chain, List<Future<RecordMetadata>>> parking = new LinkedHashMap<>();

  /** How many of a parking chain's waiting records (the first ones, in order) were sent. */
  private final Map<KeyChains.Chain, Integer> parked = new LinkedHashMap<>();

  /** Main-topic partitions whose blocked keys could not be read yet: not read until they are. */
  private final Set<TopicPartition> unrestored = new LinkedHashSet<>();

  private final ChainWrites writes;

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
    this.publisher = publisher;
    this.topics = topics;
    this.settings = settings;
    this.metrics = metrics;
    this.clock = clock;
    this.writes = new ChainWrites(chains, publisher, topics, metrics);
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
      toPark.put(c, record);
      parkWaiting();
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
    if (!refusedHeads.isEmpty()) {
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
    }
    parkWaiting();
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
      lineUp(c).ifPresent(records -> out.add(new Released(c, records)));
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
    toPark.keySet().removeIf(c -> partitions.contains(c.tp));
    parking.keySet().removeIf(c -> partitions.contains(c.tp));
    parked.keySet().removeIf(c -> partitions.contains(c.tp));
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

  private void parkWaiting() {
    for (KeyChains.Chain c : List.copyOf(toPark.keySet())) {
      Optional<List<ConsumerRecord<byte[], byte[]>>> records = lineUp(c);
      if (records.isEmpty()) {
        continue; // read again at the next turn
      }
      // Records that joined the wait while earlier dead letters were on their way follow too.
      List<Future<RecordMetadata>> sent = parking.computeIfAbsent(c, k -> new ArrayList<>());
      List<ConsumerRecord<byte[], byte[]>> rest =
          records.get().subList(Math.min(sentCount(c), records.get().size()), records.get().size());
      if (!rest.isEmpty()) {
        sent.addAll(sendParked(c, rest));
        parked.merge(c, rest.size(), Integer::sum);
      }
      if (!publisher.answered(sent, PARK_ANSWER)) {
        continue; // asked again at the next turn
      }
      parking.remove(c);
      parked.remove(c);
      ConsumerRecord<byte[], byte[]> resolved = toPark.remove(c);
      chains.park(c);
      write(c, resolved);
    }
  }

  private int sentCount(KeyChains.Chain c) {
    return parked.getOrDefault(c, 0);
  }

  private List<Future<RecordMetadata>> sendParked(
      KeyChains.Chain c, List<ConsumerRecord<byte[], byte[]>> records) {
    String blocker = c.blocker();
    Instant now = clock.instant();
    List<Future<RecordMetadata>> sent = new ArrayList<>();
    for (ConsumerRecord<byte[], byte[]> r : records) {
      sent.add(
          publisher.deadLetter(
              r,
              LadderState.of(r, settings.operationKeyHeader()),
              Hop.Failure.behind(
                  Decision.DeadLetter.WAITING_BEHIND,
                  blocker,
                  now,
                  "not executed: it waited behind " + blocker + ", which went to the DLT"),
              now));
      metrics.parked(r);
    }
    LOG.warn(
        "{} record(s) of key '{}' that waited behind {} follow it into {}",
        records.size(),
        c.key,
        blocker,
        topics.deadLetter());
    return sent;
  }

  /** The chain's waiting records, read from the main topic where only their offsets are known. */
  private Optional<List<ConsumerRecord<byte[], byte[]>>> lineUp(KeyChains.Chain c) {
    List<Long> missing =
        c.waiting.stream().filter(w -> w.record() == null).map(KeyChains.Waiting::offset).toList();
    Map<Long, ConsumerRecord<byte[], byte[]>> read = Map.of();
    if (!missing.isEmpty()) {
      try {
        read = store.fetch(c.tp, missing);
      } catch (KafkaException e) {
        LOG.warn("cannot read the records waiting behind {} yet: {}", c.blocker(), e.toString());
        return Optional.empty();
      }
    }
    List<ConsumerRecord<byte[], byte[]>> records = new ArrayList<>();
    List<KeyChains.Waiting> kept = new ArrayList<>();
    for (KeyChains.Waiting w : c.waiting) {
      ConsumerRecord<byte[], byte[]> r = w.record() != null ? w.record() : read.get(w.offset());
      if (r == null) {
        metrics.lost.increment();
        LOG.error(
            "{}@{} waited behind key '{}' and is no longer in the topic (its retention removed it)",
            c.tp,
            w.offset(),
            c.key);
        continue;
      }
      records.add(r);
      kept.add(new KeyChains.Waiting(w.offset(), r));
    }
    if (kept.size() != c.waiting.size() || !missing.isEmpty()) {
      chains.replaceWaiting(c, kept);
    }
    return Optional.of(records);
  }

  private static TopicPartition mainPartition(LadderState state) {
    return new TopicPartition(state.originalTopic(), state.originalPartition());
  }

  /** The chain's state is written before the next commit (and before {@code source}'s). */
  private void write(KeyChains.Chain c, ConsumerRecord<byte[], byte[]> source) {
    writes.changed(c, source);
  }
}
