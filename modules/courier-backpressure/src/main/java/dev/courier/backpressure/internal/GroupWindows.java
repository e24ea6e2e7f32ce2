package dev.courier.backpressure.internal;

import static dev.courier.backpressure.internal.WindowSlots.MISSING;
import static dev.courier.backpressure.internal.WindowSlots.SLOTS;

import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Map;

/**
 * The window state of one group's partitions, in columns (a row per partition the group commits on
 * or owns): the committed offset at each window slot, the previous tick's committed offset, when it
 * last moved, when lag was last zero, and the last rewind. What Burrow's rules need is kept
 * incrementally, so a tick costs the same whatever the number of samples in the window.
 */
public final class GroupWindows {

  /** A committed offset that moved back: when (the sample before it), from and to. */
  public record Rewind(long at, long from, long to) {}

  private final IntIntMap rowOf = new IntIntMap();
  private final Map<Integer, Rewind> rewinds = new HashMap<>();
  private int count;
  private int[] ids = new int[0];
  private int[] stamp = new int[0];
  private long[] ring = new long[0];
  private long[] current = new long[0];
  private long[] previous = new long[0];
  private long[] lastAdvance = new long[0];
  private long[] zeroAt = new long[0];
  private int[] owner = new int[0];
  private int[] order;

  public int count() {
    return count;
  }

  /**
   * The row of a partition (by its {@link PartitionTable} id), new if the group did not refer to it
   * before; sets this tick's committed offset (-1 none) and owner (-1 none).
   */
  public int row(int id, int tick, long committed, int ownerIndex) {
    int row = rowOf.get(id);
    if (row == IntIntMap.ABSENT) {
      row = count++;
      ensure(count);
      rowOf.put(id, row);
      ids[row] = id;
      Arrays.fill(ring, row * SLOTS, (row + 1) * SLOTS, MISSING);
      previous[row] = MISSING;
      lastAdvance[row] = Long.MIN_VALUE;
      zeroAt[row] = Long.MIN_VALUE;
      current[row] = -1;
      owner[row] = -1;
      stamp[row] = tick;
      order = null;
    }
    if (stamp[row] != tick) {
      stamp[row] = tick;
      current[row] = -1;
      owner[row] = -1;
    }
    if (committed >= 0) {
      current[row] = committed;
    }
    if (ownerIndex >= 0) {
      owner[row] = ownerIndex;
    }
    return row;
  }

  /** Drops the rows not referred to this tick (the group left the partition, or it went). */
  public void sweep(int tick) {
    for (int row = count - 1; row >= 0; row--) {
      if (stamp[row] != tick) {
        remove(row);
      }
    }
  }

  private void remove(int row) {
    rowOf.remove(ids[row]);
    rewinds.remove(ids[row]);
    int last = --count;
    if (row != last) {
      ids[row] = ids[last];
      stamp[row] = stamp[last];
      System.arraycopy(ring, last * SLOTS, ring, row * SLOTS, SLOTS);
      current[row] = current[last];
      previous[row] = previous[last];
      lastAdvance[row] = lastAdvance[last];
      zeroAt[row] = zeroAt[last];
      owner[row] = owner[last];
      rowOf.put(ids[row], row);
    }
    order = null;
  }

  /**
   * Records this tick's sample of a row: whether its committed offset moved (or lag is zero: there
   * was nothing to commit), moved back, and its value in the opened slot.
   */
  public void sample(int row, long now, long previousTickAt, long lag, int opened) {
    long committed = current[row];
    long before = previous[row];
    if (before == MISSING || before != committed || lag == 0) {
      lastAdvance[row] = now;
    }
    if (before != MISSING && before >= 0 && committed >= 0 && committed < before) {
      rewinds.put(ids[row], new Rewind(previousTickAt, before, committed));
    }
    if (lag == 0) {
      zeroAt[row] = now;
    }
    previous[row] = committed;
    if (opened >= 0) {
      ring[row * SLOTS + opened] = committed;
    }
  }

  /** Rows sorted by topic and partition, as kafka-consumer-groups lists them. */
  public int[] order(PartitionTable partitions) {
    if (order == null) {
      Integer[] rows = new Integer[count];
      for (int i = 0; i < count; i++) {
        rows[i] = i;
      }
      Comparator<Integer> byPartition =
          Comparator.comparing((Integer r) -> partitions.partition(ids[r]).topic())
              .thenComparingInt(r -> partitions.partition(ids[r]).partition());
      Arrays.sort(rows, byPartition);
      order = Arrays.stream(rows).mapToInt(Integer::intValue).toArray();
    }
    return order;
  }

  public int id(int row) {
    return ids[row];
  }

  public long committed(int row) {
    return current[row];
  }

  public int owner(int row) {
    return owner[row];
  }

  public long committedAt(int row, int physical) {
    return ring[row * SLOTS + physical];
  }

  public long lastAdvance(int row) {
    return lastAdvance[row];
  }

  public long zeroAt(int row) {
    return zeroAt[row];
  }

  /** The last rewind of the row's partition, or null. */
  public Rewind rewind(int row) {
    return rewinds.isEmpty() ? null : rewinds.get(ids[row]);
  }

  /** Forgets a rewind that left the window. */
  public void forgetRewind(int row) {
    rewinds.remove(ids[row]);
  }

  /** The oldest slot in the window where the row and its partition both have a value, or -1. */
  public int baseline(int row, WindowSlots slots, PartitionTable partitions) {
    return slots.baseline(ring, row * SLOTS, partitions.endRing(), ids[row] * SLOTS);
  }

  private void ensure(int n) {
    if (n <= ids.length) {
      return;
    }
    int c = Math.max(n, Math.max(8, ids.length + (ids.length >> 1)));
    ids = Arrays.copyOf(ids, c);
    stamp = Arrays.copyOf(stamp, c);
    ring = Arrays.copyOf(ring, c * SLOTS);
    current = Arrays.copyOf(current, c);
    previous = Arrays.copyOf(previous, c);
    lastAdvance = Arrays.copyOf(lastAdvance, c);
    zeroAt = Arrays.copyOf(zeroAt, c);
    owner = Arrays.copyOf(owner, c);
  }
}
