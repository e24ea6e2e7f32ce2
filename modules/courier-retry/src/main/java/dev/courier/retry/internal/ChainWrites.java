package dev.courier.retry.internal;

import dev.courier.retry.RetryTopics;
import java.time.Clock;
import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Future;
import java.util.function.ToIntFunction;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;

/**
 * What key order writes to {@code <topic>.<group>.retry.blocked}, and when: each key whose state
 * changed is written once before the next commit (its chain, its done mark, or a tombstone),
 * acknowledged with the ladder's forwards and holding back the commit of the records that changed
 * it.
 */
final class ChainWrites {

  private final KeyChains chains;
  private final LadderPublisher publisher;
  private final RetryTopics topics;
  private final OrderMetrics metrics;

  /**
   * Keys whose state changed since it was last written, each with the first record of each
   * partition whose commit needs the write: written once each before the next commit, so a key with
   * many records waiting costs one write per commit and not one per record.
   */
  private final Map<
          Map.Entry<TopicPartition, ChainKey>, Map<TopicPartition, ConsumerRecord<byte[], byte[]>>>
      dirty = new LinkedHashMap<>();

  /**
   * Per partition, the earliest record in {@link #dirty}'s sources, kept as they are added: {@link
   * #unwritten} is asked at every poll, and recomputing it from every changed key was the loop's
   * hottest frame in {@code OrderedRetryHops} with 10% failing.
   */
  private final Map<TopicPartition, Long> heldFrom = new HashMap<>();

  /**
   * Each key's last write on its way, until Kafka answered it: a record of the key handled
   * meanwhile waits for it too ({@link #holdOn}).
   */
  private final LinkedHashMap<Map.Entry<TopicPartition, ChainKey>, Future<RecordMetadata>>
      inFlight = new LinkedHashMap<>();

  /**
   * How often the commit after each poll writes the keys that changed: a blocked key changes with
   * every poll in which a record joins it, and writing it once per poll cost 18 writes per retried
   * record with 1% failing in {@code OrderedRetryBenchmark} (0.8 every 100 ms, most keys blocked
   * and freed within one). Their records' commits wait meanwhile ({@link #unwritten}); a
   * synchronous commit (interval, revocation, close) writes at once.
   */
  static final Duration WRITE_EVERY = Duration.ofMillis(100);

  private final Clock clock;
  private long writtenAt;

  /** The generation each partition was given in: every write is stamped with it. */
  private final ToIntFunction<TopicPartition> generation;

  ChainWrites(
      KeyChains chains,
      LadderPublisher publisher,
      RetryTopics topics,
      OrderMetrics metrics,
      Clock clock,
      ToIntFunction<TopicPartition> generation) {
    this.generation = generation;
    this.chains = chains;
    this.publisher = publisher;
    this.topics = topics;
    this.metrics = metrics;
    this.clock = clock;
  }

  /** Writes the changed keys if {@link #WRITE_EVERY} passed since they were last written. */
  void writeDue() {
    if (clock.millis() - writtenAt >= WRITE_EVERY.toMillis()) {
      writeChanged();
    }
  }

  /**
   * Per partition, the earliest record whose key's change is not written yet: nothing at or past it
   * may be committed.
   */
  Map<TopicPartition, Long> unwritten() {
    return new HashMap<>(heldFrom);
  }

  private void addSource(
      Map<TopicPartition, ConsumerRecord<byte[], byte[]>> sources,
      TopicPartition tp,
      ConsumerRecord<byte[], byte[]> record) {
    if (sources.putIfAbsent(tp, record) == null) {
      heldFrom.merge(tp, record.offset(), Math::min);
    }
  }

  /** The chain's state is written before the next commit, and before {@code source}'s. */
  void changed(KeyChain c, ConsumerRecord<byte[], byte[]> source) {
    Map<TopicPartition, ConsumerRecord<byte[], byte[]>> sources =
        dirty.computeIfAbsent(Map.entry(c.tp, c.key), k -> new LinkedHashMap<>());
    if (source != null) {
      addSource(sources, new TopicPartition(source.topic(), source.partition()), source);
    }
  }

  /**
   * The commit of a main-topic record of a key whose state is not written yet (changed, or on its
   * way) waits for that write: the key's state must never lag a record handled after its change.
   */
  void holdOn(TopicPartition tp, ConsumerRecord<byte[], byte[]> record) {
    if (record.key() == null) {
      return;
    }
    Map.Entry<TopicPartition, ChainKey> k = Map.entry(tp, new ChainKey(record.key()));
    Map<TopicPartition, ConsumerRecord<byte[], byte[]>> sources = dirty.get(k);
    if (sources != null) {
      addSource(sources, tp, record);
      return;
    }
    Future<RecordMetadata> write = inFlight.get(k);
    if (write != null && !publisher.settled(write)) {
      publisher.holdOn(record, write);
    }
  }

  /** Whether a key's state changed since it was last written. */
  boolean changedSinceWritten() {
    return !dirty.isEmpty();
  }

  /** Writes every changed key's state; one whose write is lost is written again next time. */
  void writeChanged() {
    writtenAt = clock.millis();
    // Writes settle about in the order they were sent: the settled ones at the front go, and a
    // later one settled early goes when it reaches the front (holdOn asks it anyway).
    for (var it = inFlight.values().iterator(); it.hasNext() && publisher.settled(it.next()); ) {
      it.remove();
    }
    if (dirty.isEmpty()) {
      return;
    }
    var changed = List.copyOf(dirty.entrySet());
    dirty.clear();
    heldFrom.clear();
    for (var e : changed) {
      TopicPartition tp = e.getKey().getKey();
      ChainKey key = e.getKey().getValue();
      metrics.writes.increment();
      inFlight.remove(e.getKey()); // to the back, in the order sent
      inFlight.put(
          e.getKey(),
          publisher.writeState(
              topics.blocked(),
              tp.partition(),
              ChainRecords.key(tp.partition(), key.bytes()),
              state(tp, key),
              generation.applyAsInt(tp),
              e.getValue().values(),
              () -> dirty.putIfAbsent(Map.entry(tp, key), new LinkedHashMap<>())));
    }
  }

  /**
   * Offsets committed: the done marks below them are no longer needed, and their keys' state
   * becomes a tombstone at the next write.
   */
  void committed(Map<TopicPartition, Long> offsets) {
    offsets.forEach(
        (tp, offset) -> {
          if (topics.tierOf(tp.topic()) == 0) {
            chains.committed(tp, offset).forEach(key -> tombstone(tp, key));
          }
        });
  }

  /**
   * Partitions revoked or lost. Revoked ones were written before their commit; a lost one's next
   * owner reads its records again from the last commit.
   */
  void forget(Collection<TopicPartition> partitions) {
    dirty.keySet().removeIf(e -> partitions.contains(e.getKey()));
    inFlight.keySet().removeIf(e -> partitions.contains(e.getKey()));
    heldFrom.clear();
    for (Map<TopicPartition, ConsumerRecord<byte[], byte[]>> sources : dirty.values()) {
      sources.forEach((tp, r) -> heldFrom.merge(tp, r.offset(), Math::min));
    }
  }

  private void tombstone(TopicPartition tp, ChainKey key) {
    dirty.putIfAbsent(Map.entry(tp, key), new LinkedHashMap<>());
  }

  /** The key's state: its chain, its done mark, or a tombstone. */
  private byte[] state(TopicPartition tp, ChainKey key) {
    Optional<KeyChain> c = chains.chain(tp, key.bytes());
    if (c.isPresent()) {
      return ChainRecords.value(c.get());
    }
    return chains.doneUpTo(tp, key.bytes()).map(ChainRecords::done).orElse(null);
  }
}
