package dev.courier.retry.internal;

import java.time.Instant;
import java.util.ArrayDeque;
import java.util.List;
import java.util.Optional;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;

/** One blocked key of one main-topic partition ({@code retry.ordering=key}): {@link KeyChains}. */
public final class KeyChain {

  /**
   * A record waiting behind its key's head: its main-topic offset, and the record itself unless the
   * chain was restored from Kafka (then it is read again from the main topic when its turn comes).
   */
  public record Waiting(long offset, ConsumerRecord<byte[], byte[]> record) {}

  final TopicPartition tp;
  final ChainKey key;
  final ArrayDeque<Waiting> waiting = new ArrayDeque<>();

  /** The main-topic offset of the key's record in the ladder; -1 while the key drains. */
  long head;

  /** The highest main-topic offset of the key this chain has held. */
  long seen;

  /** When the key was blocked. */
  final Instant since;

  /**
   * The head was the first of the key's waiting records, released and failed for a retry: if its
   * forward is not delivered it goes back in line ({@link KeyChains#unrelease}), as no tier brings
   * it.
   */
  boolean releasedHead;

  /**
   * A released record of the key refused and on its way to the DLT: until Kafka has taken its dead
   * letter the key's next records wait (the chain stays), so if the letter is not delivered the
   * record is handled again before them. Its offset, or -1.
   */
  long letterInFlight = -1;

  /**
   * A copy of the head came back from its tier and was taken: its forward was delivered, so the
   * head read again from the main topic (a new owner reads from before it) is not handled there as
   * well, which would call it after, or dead-letter it beside, what its copy does.
   */
  boolean headInTier;

  /**
   * The head was read again from the main topic and is handled there: a copy of it that comes from
   * its tier meanwhile is stale and not called, or the head was called (and dead-lettered) twice. A
   * new forward of it clears this: its copy is the one its key waits for.
   */
  boolean headInMain;

  KeyChain(TopicPartition tp, ChainKey key, long head, long seen, Instant since) {
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
