package dev.courier.retry.internal;

import dev.courier.retry.Decision;
import dev.courier.retry.RetryTopics;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Future;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Key order's {@code park}: the records that wait behind a head that went to the DLT follow it
 * there, as {@code waiting-behind} dead letters naming it, and the key is free only once Kafka
 * answered them all. Waiting records known only by offset are read back from the main topic first
 * ({@link #lineUp}), which draining keys use too.
 */
final class ChainParking {

  private static final Logger LOG = LoggerFactory.getLogger(ChainParking.class);

  /** How long a turn of the loop waits for a parked chain's dead letters before it goes on. */
  private static final Duration PARK_ANSWER = Duration.ofSeconds(2);

  private final KeyChains chains;
  private final ChainStore store;
  private final LadderPublisher publisher;
  private final RetryTopics topics;
  private final KeyOrder.Settings settings;
  private final OrderMetrics metrics;
  private final Clock clock;
  private final ChainWrites writes;

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

  ChainParking(
      KeyChains chains,
      ChainStore store,
      LadderPublisher publisher,
      RetryTopics topics,
      KeyOrder.Settings settings,
      OrderMetrics metrics,
      Clock clock,
      ChainWrites writes) {
    this.chains = chains;
    this.store = store;
    this.publisher = publisher;
    this.topics = topics;
    this.settings = settings;
    this.metrics = metrics;
    this.clock = clock;
    this.writes = writes;
  }

  /** Parks what waits behind {@code c}, whose head {@code record} went to the DLT. */
  void park(KeyChains.Chain c, ConsumerRecord<byte[], byte[]> record) {
    toPark.put(c, record);
    parkWaiting();
  }

  /** At the loop's turn: parks the chains whose waiting records can be read now. */
  void parkWaiting() {
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
      writes.changed(c, resolved);
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
  Optional<List<ConsumerRecord<byte[], byte[]>>> lineUp(KeyChains.Chain c) {
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

  /** The records whose resolution parks a chain's waiting records, while those are not parked. */
  Collection<ConsumerRecord<byte[], byte[]>> heads() {
    return toPark.values();
  }

  /** Partitions revoked or lost: their parking is their next owner's, who reads it back. */
  void forget(Collection<TopicPartition> partitions) {
    toPark.keySet().removeIf(c -> partitions.contains(c.tp));
    parking.keySet().removeIf(c -> partitions.contains(c.tp));
    parked.keySet().removeIf(c -> partitions.contains(c.tp));
  }
}
