package dev.courier.backpressure.internal;

import java.util.HashMap;
import java.util.Map;
import java.util.function.ObjLongConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;

/**
 * One group's committed offsets, per topic its partitions (sorted) and their offsets in two arrays.
 * The Admin client answers with a map of {@code TopicPartition} to {@code OffsetAndMetadata}, about
 * 130 bytes a pair: at a million pairs every group's map alive at once was most of a tick's heap.
 * This form takes 16 bytes a pair, and its partitions are the tick's canonical ones, one object per
 * partition shared by every group, so a group's map is garbage as soon as it is read.
 */
public final class CommittedOffsets {

  public static final CommittedOffsets NONE = new CommittedOffsets(Map.of(), 0);

  /** A topic's partitions, counted first, then filled, then sorted by partition. */
  private static final class Topic {
    private TopicPartition[] partitions;
    private long[] offsets;
    private int count;
  }

  private final Map<String, Topic> topics;
  private final int size;

  private CommittedOffsets(Map<String, Topic> topics, int size) {
    this.topics = topics;
    this.size = size;
  }

  /**
   * The offsets of a map as the Admin client returns it (a null value means none committed), its
   * partitions replaced by the ones in {@code canonical} (added there when new).
   */
  public static CommittedOffsets of(
      Map<TopicPartition, OffsetAndMetadata> committed,
      Map<TopicPartition, TopicPartition> canonical) {
    Map<String, Topic> topics = new HashMap<>();
    committed.forEach(
        (tp, om) -> {
          if (om != null) {
            topics.computeIfAbsent(tp.topic(), t -> new Topic()).count++;
          }
        });
    int size = 0;
    for (Topic t : topics.values()) {
      t.partitions = new TopicPartition[t.count];
      t.offsets = new long[t.count];
      size += t.count;
      t.count = 0;
    }
    for (Map.Entry<TopicPartition, OffsetAndMetadata> e : committed.entrySet()) {
      if (e.getValue() != null) {
        Topic t = topics.get(e.getKey().topic());
        t.partitions[t.count] = canonical.computeIfAbsent(e.getKey(), k -> k);
        t.offsets[t.count++] = e.getValue().offset();
      }
    }
    topics.values().forEach(CommittedOffsets::sortByPartition);
    return new CommittedOffsets(topics, size);
  }

  /** The number of partitions with a committed offset. */
  public int size() {
    return size;
  }

  /** The committed offset of a partition, or -1 when none is. */
  public long offset(TopicPartition tp) {
    Topic t = topics.get(tp.topic());
    if (t == null) {
      return -1;
    }
    int low = 0;
    int high = t.partitions.length - 1;
    while (low <= high) {
      int mid = (low + high) >>> 1;
      int p = t.partitions[mid].partition();
      if (p < tp.partition()) {
        low = mid + 1;
      } else if (p > tp.partition()) {
        high = mid - 1;
      } else {
        return t.offsets[mid];
      }
    }
    return -1;
  }

  /** Each committed offset with its partition, by topic and then partition. */
  public void forEach(ObjLongConsumer<TopicPartition> action) {
    for (Topic t : topics.values()) {
      for (int i = 0; i < t.partitions.length; i++) {
        action.accept(t.partitions[i], t.offsets[i]);
      }
    }
  }

  /** Admin's map comes in hash order; partitions are sorted once so a lookup can bisect. */
  private static void sortByPartition(Topic t) {
    // Partition in the high half, index in the low half: a primitive sort, no boxes.
    long[] keys = new long[t.partitions.length];
    for (int i = 0; i < keys.length; i++) {
      keys[i] = (long) t.partitions[i].partition() << 32 | i;
    }
    java.util.Arrays.sort(keys);
    TopicPartition[] partitions = new TopicPartition[keys.length];
    long[] offsets = new long[keys.length];
    for (int i = 0; i < keys.length; i++) {
      partitions[i] = t.partitions[(int) keys[i]];
      offsets[i] = t.offsets[(int) keys[i]];
    }
    t.partitions = partitions;
    t.offsets = offsets;
  }
}
