package dev.courier.backpressure.internal;

import static dev.courier.backpressure.internal.WindowSlots.MISSING;
import static dev.courier.backpressure.internal.WindowSlots.SLOTS;

import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.Deque;
import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;

/**
 * Every partition some watched group commits on or owns, under a small int id the pair state and
 * rows refer to; per partition the tick's log-end (and, where asked for, log-start) offset or why
 * it is unknown, their window rings, and the produce rate. Ids of partitions no group refers to any
 * more are reused.
 */
public final class PartitionTable {

  private final WindowSlots slots;
  private final boolean estimate;
  private final Map<TopicPartition, Integer> ids = new HashMap<>();
  private final Deque<Integer> free = new ArrayDeque<>();
  private int capacity;
  private int top;
  private TopicPartition[] partitions = new TopicPartition[0];
  private int[] stamp = new int[0];
  private long[] end = new long[0];
  private long[] start = new long[0];
  private String[] problem = new String[0];
  private long[] endRing = new long[0];
  private long[] startRing = new long[0];
  private float[] produce = new float[0];
  private OffsetTimeTable[] tables = new OffsetTimeTable[0];

  public PartitionTable(WindowSlots slots, boolean estimate) {
    this.slots = slots;
    this.estimate = estimate;
  }

  /** The partition's id, new if no group referred to it before; marks it referred to this tick. */
  public int id(TopicPartition tp, int tick) {
    Integer known = ids.get(tp);
    int id;
    if (known != null) {
      id = known;
    } else {
      id = free.isEmpty() ? top++ : free.pop();
      ensure(id + 1);
      ids.put(tp, id);
      partitions[id] = tp;
      Arrays.fill(endRing, id * SLOTS, (id + 1) * SLOTS, MISSING);
      Arrays.fill(startRing, id * SLOTS, (id + 1) * SLOTS, MISSING);
      tables[id] = estimate ? new OffsetTimeTable(64) : null;
    }
    stamp[id] = tick;
    return id;
  }

  /**
   * Takes the tick's offsets for every partition referred to, writes them into the opened slot (if
   * any), derives produce rates, and frees the ids not referred to this tick.
   */
  public void observe(
      int tick,
      long nowMillis,
      int opened,
      Map<TopicPartition, Long> ends,
      Map<TopicPartition, Long> starts,
      Map<TopicPartition, String> problems) {
    for (int id = 0; id < top; id++) {
      TopicPartition tp = partitions[id];
      if (tp == null) {
        continue;
      }
      if (stamp[id] != tick) {
        ids.remove(tp);
        partitions[id] = null;
        tables[id] = null;
        free.push(id);
        continue;
      }
      Long e = ends.get(tp);
      Long s = starts.get(tp);
      end[id] = e == null ? -1 : e;
      start[id] = s == null ? -1 : s;
      problem[id] = e == null ? problems.getOrDefault(tp, "no log-end offset") : null;
      if (opened >= 0) {
        endRing[id * SLOTS + opened] = e == null ? MISSING : e;
        startRing[id * SLOTS + opened] = s == null ? MISSING : s;
      }
      if (e != null && tables[id] != null) {
        tables[id].add(e, Instant.ofEpochMilli(nowMillis));
      }
      produce[id] = e == null ? 0 : produceRate(id, nowMillis);
    }
  }

  private float produceRate(int id, long nowMillis) {
    int base = slots.baseline(endRing, id * SLOTS, endRing, id * SLOTS);
    if (base < 0 || slots.timeOf(base) >= nowMillis) {
      return 0;
    }
    double seconds = (nowMillis - slots.timeOf(base)) / 1000.0;
    return (float) ((end[id] - endRing[id * SLOTS + base]) / seconds);
  }

  /** This tick's per-partition figures, copied: rows of a snapshot keep them while ids move on. */
  public TickPartitions figures() {
    return new TickPartitions(
        Arrays.copyOf(partitions, top), Arrays.copyOf(end, top), Arrays.copyOf(produce, top));
  }

  public TopicPartition partition(int id) {
    return partitions[id];
  }

  /** The log-end offset this tick, or -1 when unknown ({@link #problem}). */
  public long end(int id) {
    return end[id];
  }

  /** The log-start offset this tick, or -1 when not asked for. */
  public long start(int id) {
    return start[id];
  }

  public String problem(int id) {
    return problem[id];
  }

  public float produceRate(int id) {
    return produce[id];
  }

  public long endAt(int id, int physical) {
    return endRing[id * SLOTS + physical];
  }

  public long startAt(int id, int physical) {
    return startRing[id * SLOTS + physical];
  }

  long[] endRing() {
    return endRing;
  }

  /** The estimate table of the partition (estimate mode only). */
  public OffsetTimeTable table(int id) {
    return tables[id];
  }

  /** Ids in use are below this. */
  public int top() {
    return top;
  }

  private void ensure(int n) {
    if (n <= capacity) {
      return;
    }
    int c = Math.max(n, Math.max(16, capacity + (capacity >> 1)));
    partitions = Arrays.copyOf(partitions, c);
    stamp = Arrays.copyOf(stamp, c);
    end = Arrays.copyOf(end, c);
    start = Arrays.copyOf(start, c);
    problem = Arrays.copyOf(problem, c);
    produce = Arrays.copyOf(produce, c);
    tables = Arrays.copyOf(tables, c);
    endRing = Arrays.copyOf(endRing, c * SLOTS);
    startRing = Arrays.copyOf(startRing, c * SLOTS);
    capacity = c;
  }
}
