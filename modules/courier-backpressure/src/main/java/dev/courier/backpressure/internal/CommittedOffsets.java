package dev.courier.backpressure.internal;

import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;

/**
 * One group's committed offsets, per topic its partitions and their offsets in two sorted arrays.
 * The Admin client answers with a map of {@code TopicPartition} to {@code OffsetAndMetadata}, about
 * 130 bytes a pair: at a million pairs every group's map alive at once was most of a tick's heap.
 * This form takes 12 bytes a pair, so a group's map is garbage as soon as it is read.
 */
public final class CommittedOffsets {

  /** Called for each committed offset, by topic and then partition. */
  @FunctionalInterface
  public interface OffsetConsumer {
    void accept(String topic, int partition, long offset);
  }

  public static final CommittedOffsets NONE = new CommittedOffsets(Map.of(), 0);

  private record Topic(int[] partitions, long[] offsets) {}

  private final Map<String, Topic> topics;
  private final int size;

  private CommittedOffsets(Map<String, Topic> topics, int size) {
    this.topics = topics;
    this.size = size;
  }

  /** The offsets of a map as the Admin client returns it; a null value means none committed. */
  public static CommittedOffsets of(Map<TopicPartition, OffsetAndMetadata> committed) {
    Map<String, Integer> counts = new HashMap<>();
    committed.forEach(
        (tp, om) -> {
          if (om != null) {
            counts.merge(tp.topic(), 1, Integer::sum);
          }
        });
    Map<String, Topic> topics = new HashMap<>();
    counts.forEach((t, n) -> topics.put(t, new Topic(new int[n], new long[n])));
    Map<String, Integer> filled = new HashMap<>();
    int size = 0;
    for (Map.Entry<TopicPartition, OffsetAndMetadata> e : committed.entrySet()) {
      if (e.getValue() == null) {
        continue;
      }
      String topic = e.getKey().topic();
      int i = filled.merge(topic, 1, Integer::sum) - 1;
      Topic t = topics.get(topic);
      t.partitions()[i] = e.getKey().partition();
      t.offsets()[i] = e.getValue().offset();
      size++;
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
    int i = Arrays.binarySearch(t.partitions(), tp.partition());
    return i < 0 ? -1 : t.offsets()[i];
  }

  public void forEach(OffsetConsumer action) {
    topics.forEach(
        (topic, t) -> {
          for (int i = 0; i < t.partitions().length; i++) {
            action.accept(topic, t.partitions()[i], t.offsets()[i]);
          }
        });
  }

  /** Admin's map comes in hash order; partitions are sorted once so a lookup can bisect. */
  private static void sortByPartition(Topic t) {
    int[] p = t.partitions();
    long[] o = t.offsets();
    // Partition in the high half, index in the low half: a primitive sort, no boxes.
    long[] keys = new long[p.length];
    for (int i = 0; i < p.length; i++) {
      keys[i] = (long) p[i] << 32 | i;
    }
    Arrays.sort(keys);
    long[] unsorted = o.clone();
    for (int i = 0; i < keys.length; i++) {
      p[i] = (int) (keys[i] >>> 32);
      o[i] = unsorted[(int) keys[i]];
    }
  }
}
