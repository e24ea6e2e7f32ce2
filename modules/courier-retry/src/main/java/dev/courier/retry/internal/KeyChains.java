package dev.courier.retry.internal;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;

/**
 * The keys of this member's main-topic partitions that are blocked by {@code retry.ordering=key}:
 * for each, the record of the key that is in the ladder (its head) and the key's later records
 * waiting behind it, in offset order. Pure state and the rules that read it; what is written to
 * Kafka and when is {@link KeyOrder}'s.
 */
public final class KeyChains {

  private final int maxKeys;
  private final int maxWaiting;
  private final Map<TopicPartition, Map<ChainKey, KeyChain>> chains = new HashMap<>();
  private final Map<TopicPartition, Integer> waitingCounts = new HashMap<>();

  /** Keys whose chain went, until the partition is committed past their records. */
  private final DoneMarks done = new DoneMarks();

  public KeyChains(int maxKeys, int maxWaiting) {
    this.maxKeys = maxKeys;
    this.maxWaiting = maxWaiting;
  }

  public Optional<KeyChain> chain(TopicPartition tp, byte[] key) {
    if (key == null) {
      return Optional.empty();
    }
    Map<ChainKey, KeyChain> of = chains.get(tp);
    return of == null ? Optional.empty() : Optional.ofNullable(of.get(new ChainKey(key)));
  }

  /** Whether a main-topic record may be handled, must wait, was seen, or meets a bound. */
  public KeyAdmission admit(TopicPartition tp, byte[] key, long offset) {
    if (key == null) {
      return KeyAdmission.FREE; // nothing can wait on a null key: such records are never held
    }
    // Every main-topic record comes here: the key is wrapped and each map read once.
    ChainKey k = new ChainKey(key);
    Map<ChainKey, KeyChain> of = chains.get(tp);
    KeyChain c = of == null ? null : of.get(k);
    if (c == null) {
      Long handled = done.upTo(tp, k);
      if (handled != null && offset <= handled) {
        return KeyAdmission.SEEN;
      }
      return blockedKeys(tp) >= maxKeys ? KeyAdmission.FULL : KeyAdmission.FREE;
    }
    if (offset == c.head) {
      // The head itself, read again: handled (and forwarded) again unless its copy came back from
      // its tier already, which shows the forward was delivered.
      if (c.headInTier) {
        return KeyAdmission.SEEN;
      }
      c.headInMain = true;
      return KeyAdmission.FREE;
    }
    if (offset <= c.seen) {
      return KeyAdmission.SEEN;
    }
    return waitingRecords(tp) >= maxWaiting ? KeyAdmission.OVERFLOW : KeyAdmission.WAIT;
  }

  /**
   * The record waits behind its key's chain. When the chain went meanwhile (its head, read again
   * earlier in the same run, succeeded with nothing waiting), the key drains with this record in
   * line, so it is still handled in its turn; when it went to the DLT with what waited, {@link
   * #parkedBlocker} says so and the record follows it there instead (the caller's to check first).
   */
  public KeyChain follow(TopicPartition tp, ConsumerRecord<byte[], byte[]> record, Instant now) {
    KeyChain c =
        chain(tp, record.key())
            .orElseGet(
                () -> {
                  KeyChain fresh =
                      new KeyChain(tp, new ChainKey(record.key()), -1, record.offset(), now);
                  chains.computeIfAbsent(tp, t -> new HashMap<>()).put(fresh.key, fresh);
                  forgetDone(fresh);
                  return fresh;
                });
    c.waiting.addLast(new KeyChain.Waiting(record.offset(), record));
    c.seen = Math.max(c.seen, record.offset());
    waitingCounts.merge(tp, 1, Integer::sum);
    return c;
  }

  /**
   * A main-topic record went to a tier: its key is blocked with it as head. When the key was
   * draining with this record first in line, the rest wait behind it again.
   *
   * @return the chain, or empty when the key waits behind another head already (the record was
   *     prepared before that head failed): taking the head over would orphan the record in the
   *     ladder, whose outcome then resolves nothing
   */
  public Optional<KeyChain> block(TopicPartition tp, byte[] key, long offset, Instant now) {
    Optional<KeyChain> found = chain(tp, key);
    if (found.isPresent()) {
      KeyChain c = found.get();
      if (c.head >= 0 && c.head != offset) {
        return Optional.empty();
      }
      c.releasedHead = false;
      if (!c.waiting.isEmpty() && c.waiting.peekFirst().offset() == offset) {
        c.waiting.pollFirst();
        waitingCounts.merge(tp, -1, Integer::sum);
        c.releasedHead = true;
      }
      c.head = offset;
      c.headInTier = false;
      c.headInMain = false;
      c.seen = Math.max(c.seen, offset);
      return Optional.of(c);
    }
    KeyChain c = new KeyChain(tp, new ChainKey(key), offset, offset, now);
    chains.computeIfAbsent(tp, t -> new HashMap<>()).put(c.key, c);
    forgetDone(c);
    return Optional.of(c);
  }

  /**
   * A record of a blocked key that was called before its key blocked (prepared in the same run) and
   * failed: it waits in line, in offset order, and is handled again when its turn comes.
   */
  public KeyChain insertWaiting(TopicPartition tp, ConsumerRecord<byte[], byte[]> record) {
    KeyChain c = chain(tp, record.key()).orElseThrow();
    List<KeyChain.Waiting> line = new ArrayList<>(c.waiting);
    int at = 0;
    while (at < line.size() && line.get(at).offset() < record.offset()) {
      at++;
    }
    if (at < line.size() && line.get(at).offset() == record.offset()) {
      return c;
    }
    line.add(at, new KeyChain.Waiting(record.offset(), record));
    c.waiting.clear();
    c.waiting.addAll(line);
    c.seen = Math.max(c.seen, record.offset());
    waitingCounts.merge(tp, 1, Integer::sum);
    return c;
  }

  /**
   * A record that was to wait behind a chain that went to the DLT before it joined followed it
   * there: the key's done mark covers it too.
   *
   * @return the key's chain as its state is written: a done mark
   */
  public KeyChain doneAlso(TopicPartition tp, byte[] key, long offset) {
    ChainKey k = new ChainKey(key);
    return new KeyChain(tp, k, -1, done.mark(tp, k, offset), Instant.EPOCH);
  }

  /** The new chain holds everything the key's done mark did. */
  private void forgetDone(KeyChain c) {
    Long upTo = done.take(c.tp, c.key);
    if (upTo != null) {
      c.seen = Math.max(c.seen, upTo);
    }
  }

  /** The highest offset of the key's last chain, while the key is free and not committed past. */
  public Optional<Long> doneUpTo(TopicPartition tp, byte[] key) {
    return key == null ? Optional.empty() : Optional.ofNullable(done.upTo(tp, new ChainKey(key)));
  }

  /**
   * The partition is committed up to {@code offset}: keys done at offsets before it can no longer
   * be read again, and are forgotten.
   *
   * @return the keys forgotten (their state becomes a tombstone)
   */
  public List<ChainKey> committed(TopicPartition tp, long offset) {
    return done.committed(tp, offset);
  }

  /** The chain whose head is this record (by its original partition and offset), if any. */
  public Optional<KeyChain> headed(TopicPartition mainTp, byte[] key, long originalOffset) {
    return chain(mainTp, key).filter(c -> c.head >= 0 && c.head == originalOffset);
  }

  /**
   * A copy of the key's head came from its tier and is called: the head read again from the main
   * topic after this is not handled there too ({@link #admit}). Empty when the key is not headed by
   * it, or when the head is being handled from the main topic already: the copy is not called.
   */
  public Optional<KeyChain> headCopyTaken(TopicPartition mainTp, byte[] key, long originalOffset) {
    Optional<KeyChain> c = headed(mainTp, key, originalOffset).filter(chain -> !chain.headInMain);
    c.ifPresent(chain -> chain.headInTier = true);
    return c;
  }

  /**
   * The chain whose next waiting record this is, while the key drains: a released record that was
   * handled.
   */
  public Optional<KeyChain> releasing(TopicPartition tp, byte[] key, long offset) {
    return chain(tp, key)
        .filter(
            c -> c.draining() && !c.waiting.isEmpty() && c.waiting.peekFirst().offset() == offset);
  }

  /**
   * A released record that failed and became the head, or was refused and is on its way to the DLT,
   * could not be forwarded: it goes back first in line, and is handled again when the key drains.
   */
  public void unrelease(KeyChain c, ConsumerRecord<byte[], byte[]> record) {
    if (c.head == record.offset()) {
      c.head = -1;
      c.releasedHead = false;
    }
    if (c.letterInFlight == record.offset()) {
      c.letterInFlight = -1;
    }
    if (c.waiting.isEmpty() || c.waiting.peekFirst().offset() != record.offset()) {
      c.waiting.addFirst(new KeyChain.Waiting(record.offset(), record));
      waitingCounts.merge(c.tp, 1, Integer::sum);
    }
  }

  /** A released record's dead letter is on its way: the key's next records wait for it. */
  public void letterInFlight(KeyChain c, long offset) {
    c.letterInFlight = offset;
  }

  /** The released record's dead letter was delivered (or parked): the key goes on. */
  public void letterDelivered(KeyChain c) {
    c.letterInFlight = -1;
    removeIfEmpty(c);
  }

  /**
   * Who the key's last chain waited behind when it went to the DLT with what waited ({@code park}),
   * while the key is free and not committed past: a record prepared to wait behind that chain
   * before it went follows it.
   */
  public Optional<String> parkedBlocker(TopicPartition tp, byte[] key) {
    return key == null ? Optional.empty() : done.parkedBehind(tp, new ChainKey(key));
  }

  /** The head is done (or dead-lettered, waiting records released): the key drains. */
  public void drain(KeyChain c) {
    c.head = -1;
    removeIfEmpty(c);
  }

  /** The released record first in line is done. */
  public void released(KeyChain c) {
    c.waiting.pollFirst();
    waitingCounts.merge(c.tp, -1, Integer::sum);
    removeIfEmpty(c);
  }

  /** The head went to the DLT and what waited follows it: the chain goes, its waiting returned. */
  public List<KeyChain.Waiting> park(KeyChain c) {
    List<KeyChain.Waiting> parked = new ArrayList<>(c.waiting);
    waitingCounts.merge(c.tp, -parked.size(), Integer::sum);
    String blocker = c.blocker();
    c.waiting.clear();
    c.letterInFlight = -1;
    remove(c);
    done.parked(c.tp, c.key, blocker);
    return parked;
  }

  /** The chain's waiting records as read back (those no longer in the topic left out). */
  public void replaceWaiting(KeyChain c, List<KeyChain.Waiting> waiting) {
    waitingCounts.merge(c.tp, waiting.size() - c.waiting.size(), Integer::sum);
    c.waiting.clear();
    c.waiting.addAll(waiting);
    removeIfEmpty(c);
  }

  /** Whether the chain is gone (the key is free again). */
  public boolean gone(KeyChain c) {
    Map<ChainKey, KeyChain> of = chains.get(c.tp);
    return of == null || of.get(c.key) != c;
  }

  /** Chains of these partitions as read back from Kafka, replacing what was held. */
  public void restore(TopicPartition tp, Collection<KeyChain> restored) {
    forget(List.of(tp));
    Map<ChainKey, KeyChain> of = new HashMap<>();
    Map<ChainKey, Long> doneOf = new HashMap<>();
    int waiting = 0;
    for (KeyChain c : restored) {
      if (c.draining() && c.waiting.isEmpty()) {
        doneOf.put(c.key, c.seen); // a done mark, read back
        continue;
      }
      of.put(c.key, c);
      waiting += c.waiting.size();
    }
    chains.put(tp, of);
    done.restore(tp, doneOf);
    waitingCounts.put(tp, waiting);
  }

  /** A chain as read back from Kafka: its waiting records by offset only. */
  public static KeyChain restored(
      TopicPartition tp, byte[] key, long head, long seen, Instant since, List<Long> waiting) {
    KeyChain c = new KeyChain(tp, new ChainKey(key), head, seen, since);
    waiting.forEach(o -> c.waiting.addLast(new KeyChain.Waiting(o, null)));
    return c;
  }

  /** The partitions left this member. */
  public void forget(Collection<TopicPartition> partitions) {
    partitions.forEach(chains::remove);
    partitions.forEach(waitingCounts::remove);
    done.forget(partitions);
  }

  /**
   * Keys draining with records in line, to be handled now: not one whose released record's dead
   * letter is still on its way.
   */
  public List<KeyChain> draining() {
    List<KeyChain> out = new ArrayList<>();
    chains
        .values()
        .forEach(
            m ->
                m.values().stream()
                    .filter(c -> c.draining() && c.letterInFlight < 0 && !c.waiting.isEmpty())
                    .forEach(out::add));
    return out;
  }

  public int blockedKeys(TopicPartition tp) {
    Map<ChainKey, KeyChain> of = chains.get(tp);
    return of == null ? 0 : of.size();
  }

  public int waitingRecords(TopicPartition tp) {
    return waitingCounts.getOrDefault(tp, 0);
  }

  /** Below both bounds again: a partition paused for them may be read. */
  public boolean belowBounds(TopicPartition tp) {
    return blockedKeys(tp) < maxKeys && waitingRecords(tp) < maxWaiting;
  }

  /**
   * A tenth of each bound free again: a partition held at a bound is read again at once, instead of
   * after its hold-back, and not only to meet the bound with its next record.
   */
  public boolean roomAgain(TopicPartition tp) {
    return blockedKeys(tp) <= maxKeys - Math.max(1, maxKeys / 10)
        && waitingRecords(tp) <= maxWaiting - Math.max(1, maxWaiting / 10);
  }

  public int blockedKeys() {
    return chains.values().stream().mapToInt(Map::size).sum();
  }

  public int waitingRecords() {
    return waitingCounts.values().stream().mapToInt(Integer::intValue).sum();
  }

  /** When the longest-blocked key was blocked, if any is. */
  public Optional<Instant> oldest() {
    return chains.values().stream()
        .flatMap(m -> m.values().stream())
        .map(KeyChain::since)
        .min(Instant::compareTo);
  }

  private void removeIfEmpty(KeyChain c) {
    if (c.draining() && c.waiting.isEmpty() && c.letterInFlight < 0) {
      remove(c);
    }
  }

  private void remove(KeyChain c) {
    Map<ChainKey, KeyChain> of = chains.get(c.tp);
    if (of != null && of.get(c.key) == c) {
      of.remove(c.key);
      done.mark(c.tp, c.key, c.seen);
    }
  }
}
