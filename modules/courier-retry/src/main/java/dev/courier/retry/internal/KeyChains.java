package dev.courier.retry.internal;

import java.time.Instant;
import java.util.ArrayDeque;
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

  /**
   * A record waiting behind its key's head: its main-topic offset, and the record itself unless the
   * chain was restored from Kafka (then it is read again from the main topic when its turn comes).
   */
  public record Waiting(long offset, ConsumerRecord<byte[], byte[]> record) {}

  /** One blocked key of one partition. */
  public static final class Chain {
    final TopicPartition tp;
    final ChainKey key;
    final ArrayDeque<Waiting> waiting = new ArrayDeque<>();

    /** The main-topic offset of the key's record in the ladder; -1 while the key drains. */
    long head;

    /** The highest main-topic offset of the key this chain has held. */
    long seen;

    /** When the key was blocked. */
    final Instant since;

    Chain(TopicPartition tp, ChainKey key, long head, long seen, Instant since) {
      this.tp = tp;
      this.key = key;
      this.head = head;
      this.seen = seen;
      this.since = since;
    }

    public TopicPartition partition() {
      return tp;
    }

    public ChainKey key() {
      return key;
    }

    /** The head's offset, or empty while the key drains (its waiting records are handled). */
    public Optional<Long> head() {
      return head < 0 ? Optional.empty() : Optional.of(head);
    }

    public long seen() {
      return seen;
    }

    public Instant since() {
      return since;
    }

    public List<Waiting> waiting() {
      return List.copyOf(waiting);
    }

    public boolean draining() {
      return head < 0;
    }

    /** What the key waits behind, for people: the head, or the first record waiting its turn. */
    public String blocker() {
      long at = head >= 0 ? head : waiting.isEmpty() ? seen : waiting.peekFirst().offset();
      return tp.topic() + "-" + tp.partition() + "@" + at;
    }
  }

  private final int maxKeys;
  private final int maxWaiting;
  private final Map<TopicPartition, Map<ChainKey, Chain>> chains = new HashMap<>();
  private final Map<TopicPartition, Integer> waitingCounts = new HashMap<>();

  /**
   * Keys whose chain went (drained or parked), each with the highest offset the chain held, until
   * the partition is committed past it: a record of the key read again before then (a restart, a
   * commit that did not happen) was handled, parked or waited already and must not be called.
   * Written to Kafka as the key's state in place of a tombstone, so the next owner knows it too.
   */
  private final Map<TopicPartition, Map<ChainKey, Long>> done = new HashMap<>();

  public KeyChains(int maxKeys, int maxWaiting) {
    this.maxKeys = maxKeys;
    this.maxWaiting = maxWaiting;
  }

  public Optional<Chain> chain(TopicPartition tp, byte[] key) {
    if (key == null) {
      return Optional.empty();
    }
    Map<ChainKey, Chain> of = chains.get(tp);
    return of == null ? Optional.empty() : Optional.ofNullable(of.get(new ChainKey(key)));
  }

  /** Whether a main-topic record may be handled, must wait, was seen, or meets a bound. */
  public KeyAdmission admit(TopicPartition tp, byte[] key, long offset) {
    if (key == null) {
      return KeyAdmission.FREE; // nothing can wait on a null key: such records are never held
    }
    // Every main-topic record comes here: the key is wrapped and each map read once.
    ChainKey k = new ChainKey(key);
    Map<ChainKey, Chain> of = chains.get(tp);
    Chain c = of == null ? null : of.get(k);
    if (c == null) {
      Map<ChainKey, Long> doneOf = done.get(tp);
      Long handled = doneOf == null ? null : doneOf.get(k);
      if (handled != null && offset <= handled) {
        return KeyAdmission.SEEN;
      }
      return blockedKeys(tp) >= maxKeys ? KeyAdmission.FULL : KeyAdmission.FREE;
    }
    if (offset == c.head) {
      return KeyAdmission.FREE; // the head itself, read again: it is handled (and forwarded) again
    }
    if (offset <= c.seen) {
      return KeyAdmission.SEEN;
    }
    return waitingRecords(tp) >= maxWaiting ? KeyAdmission.OVERFLOW : KeyAdmission.WAIT;
  }

  /**
   * The record waits behind its key's chain. When the chain went meanwhile (its head, read again
   * earlier in the same run, succeeded with nothing waiting), the key drains with this record in
   * line, so it is still handled in its turn.
   */
  public Chain follow(TopicPartition tp, ConsumerRecord<byte[], byte[]> record, Instant now) {
    Chain c =
        chain(tp, record.key())
            .orElseGet(
                () -> {
                  Chain fresh = new Chain(tp, new ChainKey(record.key()), -1, record.offset(), now);
                  chains.computeIfAbsent(tp, t -> new HashMap<>()).put(fresh.key, fresh);
                  forgetDone(fresh);
                  return fresh;
                });
    c.waiting.addLast(new Waiting(record.offset(), record));
    c.seen = Math.max(c.seen, record.offset());
    waitingCounts.merge(tp, 1, Integer::sum);
    return c;
  }

  /**
   * A main-topic record went to a tier: its key is blocked with it as head. When the key was
   * draining with this record first in line, the rest wait behind it again.
   */
  public Chain block(TopicPartition tp, byte[] key, long offset, Instant now) {
    Optional<Chain> found = chain(tp, key);
    if (found.isPresent()) {
      Chain c = found.get();
      if (!c.waiting.isEmpty() && c.waiting.peekFirst().offset() == offset) {
        c.waiting.pollFirst();
        waitingCounts.merge(tp, -1, Integer::sum);
      }
      c.head = offset;
      c.seen = Math.max(c.seen, offset);
      return c;
    }
    Chain c = new Chain(tp, new ChainKey(key), offset, offset, now);
    chains.computeIfAbsent(tp, t -> new HashMap<>()).put(c.key, c);
    forgetDone(c);
    return c;
  }

  /** The new chain holds everything the key's done mark did. */
  private void forgetDone(Chain c) {
    Map<ChainKey, Long> of = done.get(c.tp);
    Long upTo = of == null ? null : of.remove(c.key);
    if (upTo != null) {
      c.seen = Math.max(c.seen, upTo);
    }
  }

  /** The highest offset of the key's last chain, while the key is free and not committed past. */
  public Optional<Long> doneUpTo(TopicPartition tp, byte[] key) {
    Map<ChainKey, Long> of = done.get(tp);
    return of == null || key == null
        ? Optional.empty()
        : Optional.ofNullable(of.get(new ChainKey(key)));
  }

  /**
   * The partition is read again from {@code offset} (a forward there was not delivered): keys done
   * at or after it lose their mark, so what is read again is handled again rather than taken as
   * dealt with.
   *
   * @return the keys whose mark went (their state becomes a tombstone)
   */
  public List<ChainKey> readAgainFrom(TopicPartition tp, long offset) {
    return forgetDone(tp, upTo -> upTo >= offset);
  }

  /**
   * The partition is committed up to {@code offset}: keys done at offsets before it can no longer
   * be read again, and are forgotten.
   *
   * @return the keys forgotten (their state becomes a tombstone)
   */
  public List<ChainKey> committed(TopicPartition tp, long offset) {
    return forgetDone(tp, upTo -> upTo < offset);
  }

  private List<ChainKey> forgetDone(TopicPartition tp, java.util.function.LongPredicate which) {
    Map<ChainKey, Long> of = done.get(tp);
    if (of == null) {
      return List.of();
    }
    List<ChainKey> gone = new ArrayList<>();
    of.entrySet()
        .removeIf(
            e -> {
              if (which.test(e.getValue())) {
                gone.add(e.getKey());
                return true;
              }
              return false;
            });
    return gone;
  }

  /** The chain whose head is this record (by its original partition and offset), if any. */
  public Optional<Chain> headed(TopicPartition mainTp, byte[] key, long originalOffset) {
    return chain(mainTp, key).filter(c -> c.head >= 0 && c.head == originalOffset);
  }

  /**
   * The chain whose next waiting record this is, while the key drains: a released record that was
   * handled.
   */
  public Optional<Chain> releasing(TopicPartition tp, byte[] key, long offset) {
    return chain(tp, key)
        .filter(
            c -> c.draining() && !c.waiting.isEmpty() && c.waiting.peekFirst().offset() == offset);
  }

  /** The head is done (or dead-lettered, waiting records released): the key drains. */
  public void drain(Chain c) {
    c.head = -1;
    removeIfEmpty(c);
  }

  /** The released record first in line is done. */
  public void released(Chain c) {
    c.waiting.pollFirst();
    waitingCounts.merge(c.tp, -1, Integer::sum);
    removeIfEmpty(c);
  }

  /** The head went to the DLT and what waited follows it: the chain goes, its waiting returned. */
  public List<Waiting> park(Chain c) {
    List<Waiting> parked = new ArrayList<>(c.waiting);
    waitingCounts.merge(c.tp, -parked.size(), Integer::sum);
    c.waiting.clear();
    remove(c);
    return parked;
  }

  /** The chain's waiting records as read back (those no longer in the topic left out). */
  public void replaceWaiting(Chain c, List<Waiting> waiting) {
    waitingCounts.merge(c.tp, waiting.size() - c.waiting.size(), Integer::sum);
    c.waiting.clear();
    c.waiting.addAll(waiting);
    removeIfEmpty(c);
  }

  /** Whether the chain is gone (the key is free again). */
  public boolean gone(Chain c) {
    Map<ChainKey, Chain> of = chains.get(c.tp);
    return of == null || of.get(c.key) != c;
  }

  /** Chains of these partitions as read back from Kafka, replacing what was held. */
  public void restore(TopicPartition tp, Collection<Chain> restored) {
    forget(List.of(tp));
    Map<ChainKey, Chain> of = new HashMap<>();
    Map<ChainKey, Long> doneOf = new HashMap<>();
    int waiting = 0;
    for (Chain c : restored) {
      if (c.draining() && c.waiting.isEmpty()) {
        doneOf.put(c.key, c.seen); // a done mark, read back
        continue;
      }
      of.put(c.key, c);
      waiting += c.waiting.size();
    }
    chains.put(tp, of);
    done.put(tp, doneOf);
    waitingCounts.put(tp, waiting);
  }

  /** A chain as read back from Kafka: its waiting records by offset only. */
  public static Chain restored(
      TopicPartition tp, byte[] key, long head, long seen, Instant since, List<Long> waiting) {
    Chain c = new Chain(tp, new ChainKey(key), head, seen, since);
    waiting.forEach(o -> c.waiting.addLast(new Waiting(o, null)));
    return c;
  }

  /** The partitions left this member. */
  public void forget(Collection<TopicPartition> partitions) {
    partitions.forEach(chains::remove);
    partitions.forEach(waitingCounts::remove);
    partitions.forEach(done::remove);
  }

  /** Keys draining with records in line, to be handled now. */
  public List<Chain> draining() {
    List<Chain> out = new ArrayList<>();
    chains.values().forEach(m -> m.values().stream().filter(Chain::draining).forEach(out::add));
    return out;
  }

  public int blockedKeys(TopicPartition tp) {
    Map<ChainKey, Chain> of = chains.get(tp);
    return of == null ? 0 : of.size();
  }

  public int waitingRecords(TopicPartition tp) {
    return waitingCounts.getOrDefault(tp, 0);
  }

  /** Below both bounds again: a partition paused for them may be read. */
  public boolean belowBounds(TopicPartition tp) {
    return blockedKeys(tp) < maxKeys && waitingRecords(tp) < maxWaiting;
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
        .map(Chain::since)
        .min(Instant::compareTo);
  }

  private void removeIfEmpty(Chain c) {
    if (c.draining() && c.waiting.isEmpty()) {
      remove(c);
    }
  }

  private void remove(Chain c) {
    Map<ChainKey, Chain> of = chains.get(c.tp);
    if (of != null && of.get(c.key) == c) {
      of.remove(c.key);
      done.computeIfAbsent(c.tp, t -> new HashMap<>()).merge(c.key, c.seen, Math::max);
    }
  }
}
