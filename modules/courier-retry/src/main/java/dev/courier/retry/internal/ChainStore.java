package dev.courier.retry.internal;

import dev.courier.core.CourierHeaders;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.InterruptException;
import org.apache.kafka.common.errors.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads what key order keeps in Kafka, with a consumer of its own outside the group: the blocked
 * keys of a partition from {@code <topic>.<group>.retry.blocked} (on assignment, before the
 * partition's first record), and waiting records by offset from the main topic (those restored as
 * offsets, when their turn comes).
 */
public final class ChainStore implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(ChainStore.class);

  /** The mark's header in a group's own topic of blocked keys ({@link #restore}). */
  private static final String MOVED = CourierHeaders.ORDERING_MOVED_FROM;

  private static final byte[] MOVED_KEY =
      "\u0000courier.ordering.moved".getBytes(StandardCharsets.UTF_8);
  private static final Duration POLL = Duration.ofMillis(200);

  /**
   * How far before its key blocked a record's dead letter is looked for: the workers' clocks (the
   * chain's {@code since}, the letter's timestamp) may disagree by this much.
   */
  private static final Duration CLOCK_SKEW = Duration.ofSeconds(60);

  private final Consumer<byte[], byte[]> reader;

  /** The ladder's producer: copies the shared ladder's chains into the group's own topic. */
  private final Producer<byte[], byte[]> writer;

  private final String blockedTopic;
  private final String deadLetterTopic;
  private final Duration timeout;

  /** The shared ladder's topic of blocked keys, if it exists. */
  private final String sharedBlockedTopic;

  /** The dead letters' transactional ids, opened before the DLT is read ({@link #parked}). */
  private final FencedLetters letters;

  /**
   * @param reader a consumer without a group, used only here
   * @param writer the ladder's producer
   * @param deadLetterTopic the ladder's DLT, where parked records are found ({@link #parked})
   * @param sharedBlockedTopic the shared ladder's topic of blocked keys, when it exists (copied
   *     into the group's own at a partition's first restore, {@link #restore}), or null
   * @param timeout how long one restore or fetch may take before it fails (it is tried again)
   * @param letters the ladder's fenced dead letters, or null (a reader that writes none)
   */
  public ChainStore(
      Consumer<byte[], byte[]> reader,
      Producer<byte[], byte[]> writer,
      String blockedTopic,
      String deadLetterTopic,
      String sharedBlockedTopic,
      Duration timeout,
      FencedLetters letters) {
    this.letters = letters;
    this.reader = reader;
    this.writer = writer;
    this.blockedTopic = blockedTopic;
    this.deadLetterTopic = deadLetterTopic;
    this.sharedBlockedTopic = sharedBlockedTopic;
    this.timeout = timeout;
  }

  /**
   * The main-topic offsets of the partition that have a dead letter written since {@code since}
   * (less a minute for the workers' clocks): the DLT is the record of what was parked. A former
   * owner killed after a record's letter was taken but before its key's state said so left the
   * record pending in that state; read back, it would be handled, or parked, a second time.
   *
   * @throws TimeoutException the DLT could not be read to its end within the timeout
   */
  public Set<Long> parked(TopicPartition mainTp, java.time.Instant since) {
    if (letters != null) {
      // First the partition's letters' id: a former owner's letter still on its way is refused
      // and what it left open aborted, so what is read here is all it will ever have parked.
      letters.open(mainTp.partition());
    }
    TopicPartition dlt = new TopicPartition(deadLetterTopic, mainTp.partition());
    Set<Long> offsets = new HashSet<>();
    reader.assign(List.of(dlt));
    try {
      long from =
          java.util.Optional.ofNullable(
                  reader
                      .offsetsForTimes(
                          Map.of(dlt, Math.max(0, since.minus(CLOCK_SKEW).toEpochMilli())), timeout)
                      .get(dlt))
              .map(org.apache.kafka.clients.consumer.OffsetAndTimestamp::offset)
              .orElse(-1L);
      long end = reader.endOffsets(List.of(dlt), timeout).get(dlt);
      if (from < 0 || from >= end) {
        return offsets;
      }
      reader.seek(dlt, from);
      long deadline = System.nanoTime() + timeout.toNanos();
      while (reader.position(dlt, timeout) < end) {
        if (System.nanoTime() > deadline) {
          throw new TimeoutException("could not read " + dlt + " to offset " + end);
        }
        for (ConsumerRecord<byte[], byte[]> r : reader.poll(POLL).records(dlt)) {
          if (mainTp.topic().equals(header(r, CourierHeaders.ORIGINAL_TOPIC))
              && String.valueOf(mainTp.partition())
                  .equals(header(r, CourierHeaders.ORIGINAL_PARTITION))) {
            try {
              offsets.add(Long.parseLong(header(r, CourierHeaders.ORIGINAL_OFFSET)));
            } catch (NumberFormatException e) {
              LOG.debug("{}@{}: no original offset", dlt, r.offset());
            }
          }
        }
      }
      return offsets;
    } finally {
      reader.assign(List.of());
    }
  }

  private static String header(ConsumerRecord<byte[], byte[]> r, String name) {
    org.apache.kafka.common.header.Header h = r.headers().lastHeader(name);
    return h == null || h.value() == null ? null : new String(h.value(), StandardCharsets.UTF_8);
  }

  /**
   * The chains of a main-topic partition, as the last write of each key left them. The first time a
   * group's ladder restores a partition while the shared ladder's topic of blocked keys exists, the
   * shared topic's chains (under whatever the group's own topic says since) are copied into the
   * group's own with a mark after them, before the partition's first record: from then on its own
   * topic is the whole record, and a key freed there never comes back from the shared one.
   *
   * <p>The partition is first marked with {@code generation}, the consumer group generation this
   * member was given it in. A write read after a mark or write of a higher generation comes from a
   * member that had lost the partition by then (frozen, or cut off from the broker, its producer
   * sending what it held when it woke): it is not read back, and the key's state before it is
   * written again, so compaction cannot leave the late write as the key's last word. Without this a
   * former owner's late "blocked" outlived the head the next owner had resolved, and the key's
   * later records waited for good (the campaign's seed 8: 15 records lost).
   *
   * @param generation the group generation this member was given the partition in; -1 for none
   * @throws TimeoutException the state could not be read to its end within the timeout
   */
  public List<KeyChain> restore(TopicPartition mainTp, int generation) {
    TopicPartition own = new TopicPartition(blockedTopic, mainTp.partition());
    if (generation >= 0) {
      send(own, ChainRecords.generationMark(own.partition()), new byte[0], generation);
    }
    Map<ChainKey, byte[][]> last = new LinkedHashMap<>();
    Map<ChainKey, String> fenced = new HashMap<>();
    boolean moved = read(own, mainTp.partition(), last, fenced);
    if (sharedBlockedTopic != null && !moved) {
      Map<ChainKey, byte[][]> merged = new LinkedHashMap<>();
      read(
          new TopicPartition(sharedBlockedTopic, mainTp.partition()),
          mainTp.partition(),
          merged,
          new HashMap<>());
      merged.putAll(last); // the group's own word on a key, a freed one too, is the later one
      moveShared(own, merged, generation);
      last = merged;
    }
    for (var f : fenced.entrySet()) {
      ChainKey key = f.getKey();
      byte[][] kv = last.get(key);
      LOG.warn(
          "{}: key '{}' was last written {}: a former owner's late write; not read back, and"
              + " the key's state before it is written again ({})",
          own,
          new String(key.bytes(), StandardCharsets.UTF_8),
          f.getValue(),
          kv == null ? "free" : "blocked");
      send(
          own,
          ChainRecords.key(own.partition(), key.bytes()),
          kv == null ? null : kv[1],
          generation);
    }
    List<KeyChain> chains = new ArrayList<>();
    last.forEach(
        (key, kv) -> {
          if (kv == null) {
            return; // free
          }
          try {
            chains.add(ChainRecords.chain(mainTp, kv[0], kv[1]));
          } catch (IllegalArgumentException e) {
            LOG.error(
                "{}: blocked key {} unreadable ({}); it is not held", own, key, e.getMessage());
          }
        });
    return chains;
  }

  /**
   * Sends a record stamped with the generation, unawaited: the ladder's producer keeps it ahead of
   * this member's later writes to the partition, and one that fails is only a mark or a repair the
   * next owner makes again.
   */
  private void send(TopicPartition own, byte[] key, byte[] value, int generation) {
    ProducerRecord<byte[], byte[]> r =
        new ProducerRecord<>(own.topic(), own.partition(), key, value);
    ChainRecords.stamp(r.headers(), generation);
    writer.send(
        r,
        (metadata, e) -> {
          if (e != null) {
            LOG.warn("{}: could not write a key's state or mark ({})", own, e.toString());
          }
        });
  }

  /**
   * Reads a partition of a topic of blocked keys to its end: the last record of each key of the
   * main partition (null for a tombstone), except those written after a higher generation's mark or
   * write: a key whose last record is such a write goes to {@code fenced}, with where and by whom
   * it was written. Whether the mark of the shared ladder's move was seen.
   */
  private boolean read(
      TopicPartition state,
      int mainPartition,
      Map<ChainKey, byte[][]> last,
      Map<ChainKey, String> fenced) {
    reader.assign(List.of(state));
    try {
      long end = reader.endOffsets(List.of(state), timeout).get(state);
      reader.seekToBeginning(List.of(state));
      boolean moved = false;
      int highest = -1;
      long deadline = System.nanoTime() + timeout.toNanos();
      while (reader.position(state, timeout) < end) {
        if (System.nanoTime() > deadline) {
          throw new TimeoutException("could not read " + state + " to offset " + end);
        }
        for (ConsumerRecord<byte[], byte[]> r : reader.poll(POLL).records(state)) {
          int generation = ChainRecords.generationOf(r);
          if (r.headers().lastHeader(MOVED) != null) {
            moved = true;
          } else if (r.key() != null && ChainRecords.partitionOf(r.key()) == mainPartition) {
            byte[] recordKey = ChainRecords.recordKeyOf(r.key());
            if (ChainRecords.isGenerationMark(recordKey)) {
              // only raises the fence below
            } else if (generation >= 0 && generation < highest) {
              fenced.put(
                  new ChainKey(recordKey),
                  "at offset "
                      + r.offset()
                      + " by generation "
                      + generation
                      + " after generation "
                      + highest
                      + " had the partition");
            } else {
              ChainKey key = new ChainKey(recordKey);
              fenced.remove(key); // written since by an owner (a repair, or its own change)
              last.put(key, r.value() == null ? null : new byte[][] {r.key(), r.value()});
            }
          }
          highest = Math.max(highest, generation);
        }
      }
      return moved;
    } finally {
      reader.assign(List.of());
    }
  }

  /**
   * Writes the chains into the group's own topic, then the mark, and waits for Kafka to take all.
   */
  private void moveShared(TopicPartition own, Map<ChainKey, byte[][]> chains, int generation) {
    List<Future<?>> sends = new ArrayList<>();
    chains.forEach(
        (key, kv) -> {
          if (kv != null) {
            ProducerRecord<byte[], byte[]> copy =
                new ProducerRecord<>(own.topic(), own.partition(), kv[0], kv[1]);
            ChainRecords.stamp(copy.headers(), generation);
            sends.add(writer.send(copy));
          }
        });
    ProducerRecord<byte[], byte[]> mark =
        new ProducerRecord<>(
            own.topic(),
            own.partition(),
            ChainRecords.key(own.partition(), MOVED_KEY),
            new byte[0]);
    mark.headers().add(MOVED, sharedBlockedTopic.getBytes(StandardCharsets.UTF_8));
    ChainRecords.stamp(mark.headers(), generation);
    try {
      for (Future<?> send : sends) {
        send.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
      }
      writer.send(mark).get(timeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptException(e);
    } catch (ExecutionException | java.util.concurrent.TimeoutException e) {
      throw new TimeoutException("could not copy " + sharedBlockedTopic + " into " + own, e);
    }
    LOG.info(
        "{}: {} blocked key(s) of the shared ladder's {} copied into the group's own",
        own,
        sends.size(),
        sharedBlockedTopic);
  }

  /**
   * The main-topic records at these offsets; an offset missing from the answer is no longer in the
   * topic (its retention removed it).
   *
   * @throws TimeoutException the records could not be read within the timeout
   */
  public Map<Long, ConsumerRecord<byte[], byte[]>> fetch(
      TopicPartition mainTp, Collection<Long> offsets) {
    TreeSet<Long> wanted = new TreeSet<>(offsets);
    Map<Long, ConsumerRecord<byte[], byte[]>> found = new HashMap<>();
    if (wanted.isEmpty()) {
      return found;
    }
    reader.assign(List.of(mainTp));
    long end = reader.endOffsets(List.of(mainTp), timeout).get(mainTp);
    reader.seek(mainTp, wanted.first());
    long deadline = System.nanoTime() + timeout.toNanos();
    try {
      while (reader.position(mainTp, timeout) <= wanted.last()
          && reader.position(mainTp, timeout) < end) {
        if (System.nanoTime() > deadline) {
          throw new TimeoutException("could not read " + mainTp + " up to offset " + wanted.last());
        }
        for (ConsumerRecord<byte[], byte[]> r : reader.poll(POLL).records(mainTp)) {
          if (wanted.contains(r.offset())) {
            found.put(r.offset(), r);
          }
        }
      }
    } finally {
      reader.assign(List.of());
    }
    return found;
  }

  /** Partitions revoked or lost: their dead letters' ids are closed. */
  public void released(Collection<TopicPartition> mainPartitions) {
    if (letters != null) {
      letters.release(mainPartitions.stream().map(TopicPartition::partition).toList());
    }
  }

  @Override
  public void close() {
    reader.close(Duration.ofSeconds(5));
  }
}
