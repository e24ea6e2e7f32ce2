package dev.courier.backpressure.internal;

import static dev.courier.backpressure.internal.OldestRecordReader.UNREAD;

import java.time.Duration;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeSet;
import java.util.function.IntFunction;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The timestamps of the records groups wait at, per partition and distinct offset (a hundred groups
 * at one offset cost one read). A timestamp is reused while younger than the cache time: timestamps
 * never change, but retention or compaction may delete the record, and the cache bounds how long
 * the age keeps following a deleted one.
 */
public final class AgeBook {

  private static final Logger LOG = LoggerFactory.getLogger(AgeBook.class);

  private final RecordStamps reader;
  private final long ttlMillis;
  private final Duration timeout;
  private Positions[] byId = new Positions[0];
  private int[] touched = new int[16];
  private int touchedCount;

  public AgeBook(RecordStamps reader, Duration ttl, Duration timeout) {
    this.reader = reader;
    this.ttlMillis = ttl.toMillis();
    this.timeout = timeout;
  }

  /** A group waits at {@code offset} of partition {@code id} this tick. */
  public void want(int id, long offset) {
    if (id >= byId.length) {
      byId = Arrays.copyOf(byId, Math.max(id + 1, byId.length * 2));
    }
    Positions p = byId[id];
    if (p == null) {
      p = byId[id] = new Positions();
    }
    if (p.wantedCount == 0) {
      if (touchedCount == touched.length) {
        touched = Arrays.copyOf(touched, touchedCount * 2);
      }
      touched[touchedCount++] = id;
    }
    p.want(offset);
  }

  /** Reads what is wanted and not known fresh, in one pass; forgets what nothing waits on. */
  public void resolve(
      long nowMillis, IntFunction<TopicPartition> partitionOf, Map<TopicPartition, Long> ends) {
    boolean[] used = new boolean[byId.length];
    Map<TopicPartition, long[]> toRead = new HashMap<>();
    Map<TopicPartition, Positions> reading = new HashMap<>();
    for (int t = 0; t < touchedCount; t++) {
      int id = touched[t];
      used[id] = true;
      long[] missing = byId[id].prepare(nowMillis, ttlMillis);
      if (missing.length > 0) {
        TopicPartition tp = partitionOf.apply(id);
        toRead.put(tp, missing);
        reading.put(tp, byId[id]);
      }
    }
    Map<TopicPartition, long[]> read =
        toRead.isEmpty() ? Map.of() : reader.read(toRead, ends, timeout);
    TreeSet<String> unread = new TreeSet<>();
    read.forEach(
        (tp, found) -> {
          if (!reading.get(tp).found(toRead.get(tp), found, nowMillis)) {
            unread.add(tp.toString());
          }
        });
    if (!unread.isEmpty()) {
      LOG.warn(
          "oldest age: {} partition(s) not read within {} ms, reporting the age of an older"
              + " known record until read: {}",
          unread.size(),
          timeout.toMillis(),
          String.join(", ", unread.stream().limit(10).toList())
              + (unread.size() > 10 ? ", ..." : ""));
    }
    for (int t = 0; t < touchedCount; t++) {
      byId[touched[t]].commit();
    }
    touchedCount = 0;
    for (int id = 0; id < byId.length; id++) {
      if (!used[id]) {
        byId[id] = null;
      }
    }
  }

  /**
   * The timestamp of the oldest record at or after {@code offset}: epoch millis, {@link
   * OldestRecordReader#NOTHING_WAITING}, or {@link OldestRecordReader#UNREAD}.
   */
  public long timestamp(int id, long offset) {
    Positions p = id < byId.length ? byId[id] : null;
    return p == null ? UNREAD : p.stamp(offset);
  }

  /**
   * Whether {@link #timestamp} is that of the record at or after {@code offset} as read (now or
   * within the cache time), and not an older record's standing in for one not read in time.
   */
  public boolean exact(int id, long offset) {
    Positions p = id < byId.length ? byId[id] : null;
    return p != null && p.exact(offset);
  }

  /** One partition: the offsets wanted this tick, and those known with their stamps. */
  private static final class Positions {
    long[] wanted = new long[4];
    int wantedCount;
    long[] offsets = new long[0];
    long[] stamps = new long[0];
    long[] readAt = new long[0];
    boolean[] exact = new boolean[0];
    long[] nextOffsets;
    long[] nextStamps;
    long[] nextReadAt;
    boolean[] nextExact;

    void want(long offset) {
      if (wantedCount > 0 && wanted[wantedCount - 1] == offset) {
        return;
      }
      if (wantedCount == wanted.length) {
        wanted = Arrays.copyOf(wanted, wantedCount * 2);
      }
      wanted[wantedCount++] = offset;
    }

    /** Builds the next known set from the fresh cache; returns the offsets still to read. */
    long[] prepare(long now, long ttl) {
      long[] w = Arrays.copyOf(wanted, wantedCount);
      Arrays.sort(w);
      int n = 0;
      for (long o : w) {
        if (n == 0 || w[n - 1] != o) {
          w[n++] = o;
        }
      }
      nextOffsets = Arrays.copyOf(w, n);
      nextStamps = new long[n];
      nextReadAt = new long[n];
      nextExact = new boolean[n];
      int missing = 0;
      for (int i = 0; i < n; i++) {
        int k = Arrays.binarySearch(offsets, nextOffsets[i]);
        if (k >= 0 && now - readAt[k] < ttl) {
          nextStamps[i] = stamps[k];
          nextReadAt[i] = readAt[k];
          nextExact[i] = exact[k];
        } else {
          nextStamps[i] = UNREAD;
          missing++;
        }
      }
      long[] toRead = new long[missing];
      for (int i = 0, m = 0; i < n; i++) {
        if (nextStamps[i] == UNREAD) {
          toRead[m++] = nextOffsets[i];
        }
      }
      return toRead;
    }

    /**
     * Takes what was read; an offset not read in time falls back to an older known one.
     *
     * @return whether every asked offset was read
     */
    boolean found(long[] asked, long[] stampsRead, long now) {
      boolean all = true;
      for (int j = 0; j < asked.length; j++) {
        int i = Arrays.binarySearch(nextOffsets, asked[j]);
        if (stampsRead[j] != UNREAD) {
          nextStamps[i] = stampsRead[j];
          nextExact[i] = true;
          // Nothing waiting is asked again next tick: the next record may come any moment.
          nextReadAt[i] =
              stampsRead[j] == OldestRecordReader.NOTHING_WAITING ? Long.MIN_VALUE / 2 : now;
        } else {
          // Overstates the age slightly (an older record), never hides it; read again next tick.
          nextStamps[i] = olderKnown(asked[j]);
          nextReadAt[i] = Long.MIN_VALUE / 2;
          all = false;
        }
      }
      return all;
    }

    private long olderKnown(long offset) {
      int k = Arrays.binarySearch(offsets, offset);
      for (int i = k >= 0 ? k : -k - 2; i >= 0; i--) {
        if (stamps[i] >= 0) {
          return stamps[i];
        }
      }
      return UNREAD;
    }

    void commit() {
      offsets = nextOffsets;
      stamps = nextStamps;
      readAt = nextReadAt;
      exact = nextExact;
      nextOffsets = nextStamps = nextReadAt = null;
      nextExact = null;
      wantedCount = 0;
    }

    long stamp(long offset) {
      int k = Arrays.binarySearch(offsets, offset);
      return k < 0 ? UNREAD : stamps[k];
    }

    boolean exact(long offset) {
      int k = Arrays.binarySearch(offsets, offset);
      return k >= 0 && exact[k];
    }
  }
}
