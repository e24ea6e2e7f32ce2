package dev.courier.retry.internal;

import dev.courier.retry.Decision;
import dev.courier.retry.RetryTopics;
import dev.courier.retry.WaitingOnDeadLetter;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Future;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.RecordTooLargeException;
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
  private final Map<KeyChain, ConsumerRecord<byte[], byte[]>> toPark = new LinkedHashMap<>();

  /**
   * Parked chains' dead letters, in order, each with its record: the chain goes (and its done mark
   * is written) only once Kafka took every one, so a crash before then parks them again rather than
   * losing them behind a mark. One Kafka did not take is sent again, without its value when that is
   * what was too large; a letter below what is committed never brings its partition back.
   */
  private final Map<KeyChain, List<Letter>> parking = new LinkedHashMap<>();

  /** Heads dead-lettered whose letter Kafka has not answered yet ({@link #headDeadLettered}). */
  private final Map<KeyChain, Letter> headLetters = new LinkedHashMap<>();

  /** When a chain whose letter Kafka refused is tried again. */
  private final Map<KeyChain, Instant> retryAt = new LinkedHashMap<>();

  private record Letter(
      ConsumerRecord<byte[], byte[]> record, Future<RecordMetadata> send, boolean withoutValue) {}

  /** How long a chain whose letter Kafka refused waits before it is sent again. */
  private static final Duration RESEND = Duration.ofSeconds(1);

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

  /**
   * With {@code retry.ordering.overflow=dead-letter}: a record that would wait beyond {@code
   * retry.ordering.max.waiting.records} goes to the DLT, naming the record it would have waited
   * behind.
   */
  Optional<RecordStep> overflow(ConsumerRecord<byte[], byte[]> record, TopicPartition tp) {
    metrics.overflows.increment();
    KeyChain c = chains.chain(tp, record.key()).orElseThrow();
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

  /** Heads whose forward to a tier was parked instead: resolved at the loop's next turn. */
  private final List<Map.Entry<ConsumerRecord<byte[], byte[]>, LadderState>> refusedHeads =
      new ArrayList<>();

  /**
   * {@code c}'s head ({@code record}) went to the DLT: with {@code release}, or nothing waiting,
   * the key drains; else what waits follows it. Only once Kafka took the head's own letter ({@code
   * letter}, null when it is known to be there): until then the key stays headed by it, so that a
   * letter Kafka refuses (a DLT write denied, the broker away past the delivery timeout) brings the
   * head back from its tier, called and dead-lettered again. Resolved at once, its followers were
   * parked behind a record that was in no DLT, and its copy read again was taken for a stale one
   * and committed past: lost.
   */
  void headDeadLettered(
      KeyChain c, ConsumerRecord<byte[], byte[]> record, Future<RecordMetadata> letter) {
    if (letter != null) {
      headLetters.put(c, new Letter(record, letter, false));
      settleHeadLetters();
      return;
    }
    headLetters.remove(c); // its letter refused, then parked without its value
    resolveHead(c, record);
  }

  /** Heads whose letter Kafka answered: resolved if it took it, left headed if it refused it. */
  private void settleHeadLetters() {
    for (Map.Entry<KeyChain, Letter> e : List.copyOf(headLetters.entrySet())) {
      Letter l = e.getValue();
      if (!l.send().isDone() || !headLetters.remove(e.getKey(), l)) {
        continue;
      }
      Throwable refused = Answers.refusal(l.send());
      if (refused == null) {
        resolveHead(e.getKey(), l.record());
      } else {
        LOG.warn(
            "the dead letter of {}, which heads key '{}', was not taken ({}): the key waits for it"
                + " to come again from its tier",
            Outcomes.coordinates(l.record()),
            e.getKey().key,
            refused.toString());
      }
    }
  }

  private void resolveHead(KeyChain c, ConsumerRecord<byte[], byte[]> record) {
    if (settings.onDeadLetter() == WaitingOnDeadLetter.RELEASE || c.waiting.isEmpty()) {
      chains.drain(c);
      writes.changed(c, record);
    } else {
      toPark.put(c, record);
      parkWaiting();
    }
  }

  /**
   * A head's forward to a tier, or its letter, was refused for good and parked in the DLT instead.
   */
  void refusedHead(ConsumerRecord<byte[], byte[]> record, LadderState state) {
    refusedHeads.add(Map.entry(record, state));
  }

  /**
   * Resolves the heads whose forward to a tier was parked instead, as heads that went to the DLT.
   *
   * @return whether there were any
   */
  boolean resolveRefused() {
    if (refusedHeads.isEmpty()) {
      return false;
    }
    List<Map.Entry<ConsumerRecord<byte[], byte[]>, LadderState>> refused =
        List.copyOf(refusedHeads);
    refusedHeads.clear();
    for (Map.Entry<ConsumerRecord<byte[], byte[]>, LadderState> e : refused) {
      ConsumerRecord<byte[], byte[]> r = e.getKey();
      LadderState state = e.getValue();
      if (r.key() != null) {
        chains
            .headed(
                new TopicPartition(state.originalTopic(), state.originalPartition()),
                r.key(),
                state.originalOffset())
            .ifPresent(c -> headDeadLettered(c, r, null));
      }
    }
    return true;
  }

  /** Per partition, the earliest record whose key's resolution is not written yet. */
  Map<TopicPartition, Long> unresolved() {
    Map<TopicPartition, Long> held = new HashMap<>();
    for (Map.Entry<ConsumerRecord<byte[], byte[]>, LadderState> e : refusedHeads) {
      hold(held, e.getKey());
    }
    toPark.values().forEach(r -> hold(held, r));
    headLetters.values().forEach(l -> hold(held, l.record()));
    return held;
  }

  private static void hold(Map<TopicPartition, Long> held, ConsumerRecord<byte[], byte[]> r) {
    if (r != null && r.key() != null) {
      held.merge(new TopicPartition(r.topic(), r.partition()), r.offset(), Math::min);
    }
  }

  /** At the loop's turn: parks the chains whose waiting records can be read now. */
  void parkWaiting() {
    settleHeadLetters();
    for (KeyChain c : List.copyOf(toPark.keySet())) {
      Instant again = retryAt.get(c);
      if (again != null && clock.instant().isBefore(again)) {
        continue;
      }
      Optional<List<ConsumerRecord<byte[], byte[]>>> records = lineUp(c);
      if (records.isEmpty()) {
        continue; // read again at the next turn
      }
      // Records that joined the wait while earlier dead letters were on their way follow too.
      List<Letter> letters = parking.computeIfAbsent(c, k -> new ArrayList<>());
      List<ConsumerRecord<byte[], byte[]>> rest =
          records
              .get()
              .subList(Math.min(letters.size(), records.get().size()), records.get().size());
      if (!rest.isEmpty()) {
        sendParked(c, rest, letters);
      }
      List<Future<RecordMetadata>> sends = letters.stream().map(Letter::send).toList();
      if (!Answers.answered(sends, PARK_ANSWER) || !allTaken(c, letters)) {
        continue; // asked again at the next turn
      }
      parking.remove(c);
      retryAt.remove(c);
      ConsumerRecord<byte[], byte[]> resolved = toPark.remove(c);
      chains.park(c);
      writes.changed(c, resolved);
    }
  }

  /**
   * A record prepared to wait behind a chain that went to the DLT before it joined: it follows it
   * there (a letter held with the forwards, as the record is not committed yet).
   */
  void parkLate(ConsumerRecord<byte[], byte[]> record, String blocker) {
    publisher.deadLetter(
        record,
        LadderState.of(record, settings.operationKeyHeader()),
        behind(blocker, clock.instant()),
        clock.instant());
    metrics.parked(record);
    LOG.warn(
        "{} waited behind {}, which went to the DLT: it follows it into {}",
        Outcomes.coordinates(record),
        blocker,
        topics.deadLetter());
  }

  /** Whether Kafka took every letter; each it did not is sent again (after {@link #RESEND}). */
  private boolean allTaken(KeyChain c, List<Letter> letters) {
    boolean all = true;
    for (int i = 0; i < letters.size(); i++) {
      Letter l = letters.get(i);
      Throwable refused = Answers.refusal(l.send());
      if (refused == null) {
        continue;
      }
      all = false;
      boolean withoutValue = l.withoutValue() || refused instanceof RecordTooLargeException;
      LOG.warn(
          "the dead letter of {}, which waited behind {}, was not taken ({}); sending it again",
          Outcomes.coordinates(l.record()),
          c.blocker(),
          refused.toString());
      letters.set(
          i, new Letter(l.record(), send(c.blocker(), l.record(), withoutValue), withoutValue));
    }
    if (!all) {
      retryAt.put(c, clock.instant().plus(RESEND));
    }
    return all;
  }

  private void sendParked(
      KeyChain c, List<ConsumerRecord<byte[], byte[]>> records, List<Letter> letters) {
    for (ConsumerRecord<byte[], byte[]> r : records) {
      letters.add(new Letter(r, send(c.blocker(), r, false), false));
      metrics.parked(r);
    }
    LOG.warn(
        "{} record(s) of key '{}' that waited behind {} follow it into {}",
        records.size(),
        c.key,
        c.blocker(),
        topics.deadLetter());
  }

  private Future<RecordMetadata> send(
      String blocker, ConsumerRecord<byte[], byte[]> r, boolean withoutValue) {
    Instant now = clock.instant();
    return publisher.deadLetterAside(
        r,
        LadderState.of(r, settings.operationKeyHeader()),
        behind(blocker, now),
        now,
        withoutValue);
  }

  private static Hop.Failure behind(String blocker, Instant at) {
    return Hop.Failure.behind(
        Decision.DeadLetter.WAITING_BEHIND,
        blocker,
        at,
        "not executed: it waited behind " + blocker + ", which went to the DLT");
  }

  /** The chain's waiting records, read from the main topic where only their offsets are known. */
  Optional<List<ConsumerRecord<byte[], byte[]>>> lineUp(KeyChain c) {
    List<Long> missing =
        c.waiting.stream().filter(w -> w.record() == null).map(KeyChain.Waiting::offset).toList();
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
    List<KeyChain.Waiting> kept = new ArrayList<>();
    for (KeyChain.Waiting w : c.waiting) {
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
      kept.add(new KeyChain.Waiting(w.offset(), r));
    }
    if (kept.size() != c.waiting.size() || !missing.isEmpty()) {
      chains.replaceWaiting(c, kept);
    }
    return Optional.of(records);
  }

  /**
   * Partitions being revoked: waits up to {@link #PARK_ANSWER} for their chains' letters, sent
   * aside from the forwards that the revocation's commit waits for. Their next owner reads the DLT
   * when it is assigned, and parked again a record whose letter was still on its way ({@code
   * FaultCampaign} run 8, seed 7: op-570 parked twice as waiting-behind, 0.3 s apart, after a
   * worker thawed).
   */
  void awaitLetters(Collection<TopicPartition> partitions) {
    List<Future<RecordMetadata>> sends = new ArrayList<>();
    parking.forEach(
        (c, letters) -> {
          if (partitions.contains(c.tp)) {
            letters.forEach(l -> sends.add(l.send()));
          }
        });
    // Heads' own letters are forwards (LadderPublisher.deadLetter): the commit waited for them.
    if (!sends.isEmpty() && !Answers.answered(sends, PARK_ANSWER)) {
      LOG.warn(
          "{} dead letter(s) of {} not answered within {} ms of their revocation: the next owner"
              + " may park those records again",
          sends.size(),
          partitions,
          PARK_ANSWER.toMillis());
    }
  }

  /** Partitions revoked or lost: their parking is their next owner's, who reads it back. */
  void forget(Collection<TopicPartition> partitions) {
    toPark.keySet().removeIf(c -> partitions.contains(c.tp));
    headLetters.keySet().removeIf(c -> partitions.contains(c.tp));
    parking.keySet().removeIf(c -> partitions.contains(c.tp));
    retryAt.keySet().removeIf(c -> partitions.contains(c.tp));
  }
}
