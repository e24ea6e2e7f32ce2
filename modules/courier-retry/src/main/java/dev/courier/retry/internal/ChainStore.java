package dev.courier.retry.internal;

import dev.courier.core.CourierHeaders;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads what key order keeps in Kafka, with a consumer of its own outside the group: the blocked
 * keys of a partition from {@code <topic>.retry.blocked} (on assignment, before the partition's
 * first record), and waiting records by offset from the main topic (those restored as offsets, when
 * their turn comes).
 */
public final class ChainStore implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(ChainStore.class);
  private static final Duration POLL = Duration.ofMillis(200);

  /**
   * How far before its key blocked a record's dead letter is looked for: the workers' clocks (the
   * chain's {@code since}, the letter's timestamp) may disagree by this much.
   */
  private static final Duration CLOCK_SKEW = Duration.ofSeconds(60);

  private final Consumer<byte[], byte[]> reader;
  private final String blockedTopic;
  private final String deadLetterTopic;
  private final Duration timeout;

  /**
   * @param reader a consumer without a group, used only here
   * @param deadLetterTopic the ladder's DLT, where parked records are found ({@link #parked})
   * @param timeout how long one restore or fetch may take before it fails (it is tried again)
   */
  public ChainStore(
      Consumer<byte[], byte[]> reader,
      String blockedTopic,
      String deadLetterTopic,
      Duration timeout) {
    this.reader = reader;
    this.blockedTopic = blockedTopic;
    this.deadLetterTopic = deadLetterTopic;
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
  public java.util.Set<Long> parked(TopicPartition mainTp, java.time.Instant since) {
    TopicPartition dlt = new TopicPartition(deadLetterTopic, mainTp.partition());
    java.util.Set<Long> offsets = new java.util.HashSet<>();
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
    return h == null || h.value() == null
        ? null
        : new String(h.value(), java.nio.charset.StandardCharsets.UTF_8);
  }

  /**
   * The chains of a main-topic partition, as the last write of each key left them.
   *
   * @throws TimeoutException the state could not be read to its end within the timeout
   */
  public List<KeyChain> restore(TopicPartition mainTp) {
    TopicPartition state = new TopicPartition(blockedTopic, mainTp.partition());
    reader.assign(List.of(state));
    reader.seekToBeginning(List.of(state));
    long end = reader.endOffsets(List.of(state), timeout).get(state);
    Map<ChainKey, byte[][]> last = new LinkedHashMap<>();
    long deadline = System.nanoTime() + timeout.toNanos();
    while (reader.position(state, timeout) < end) {
      if (System.nanoTime() > deadline) {
        throw new TimeoutException("could not read " + state + " to offset " + end);
      }
      for (ConsumerRecord<byte[], byte[]> r : reader.poll(POLL).records(state)) {
        if (r.key() == null || ChainRecords.partitionOf(r.key()) != mainTp.partition()) {
          continue;
        }
        ChainKey key = new ChainKey(ChainRecords.recordKeyOf(r.key()));
        if (r.value() == null) {
          last.remove(key);
        } else {
          last.put(key, new byte[][] {r.key(), r.value()});
        }
      }
    }
    List<KeyChain> chains = new ArrayList<>();
    last.forEach(
        (key, kv) -> {
          try {
            chains.add(ChainRecords.chain(mainTp, kv[0], kv[1]));
          } catch (IllegalArgumentException e) {
            LOG.error(
                "{}: blocked key {} unreadable ({}); it is not held", state, key, e.getMessage());
          }
        });
    reader.assign(List.of());
    return chains;
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

  @Override
  public void close() {
    reader.close(Duration.ofSeconds(5));
  }
}
