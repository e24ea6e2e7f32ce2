package dev.courier.retry.internal;

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

  private final Consumer<byte[], byte[]> reader;
  private final String blockedTopic;
  private final Duration timeout;

  /**
   * @param reader a consumer without a group, used only here
   * @param timeout how long one restore or fetch may take before it fails (it is tried again)
   */
  public ChainStore(Consumer<byte[], byte[]> reader, String blockedTopic, Duration timeout) {
    this.reader = reader;
    this.blockedTopic = blockedTopic;
    this.timeout = timeout;
  }

  /**
   * The chains of a main-topic partition, as the last write of each key left them.
   *
   * @throws TimeoutException the state could not be read to its end within the timeout
   */
  public List<KeyChains.Chain> restore(TopicPartition mainTp) {
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
    List<KeyChains.Chain> chains = new ArrayList<>();
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
