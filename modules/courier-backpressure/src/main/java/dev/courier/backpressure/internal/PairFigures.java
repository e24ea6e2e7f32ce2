package dev.courier.backpressure.internal;

import static dev.courier.backpressure.internal.WindowSlots.MISSING;

import dev.courier.backpressure.internal.ClusterOffsets.Owner;
import dev.courier.backpressure.internal.GroupWindows.Rewind;

/**
 * Turns one tick's sample of a group's partitions into rows: lag as kafka-consumer-groups counts
 * it, the age of the oldest unconsumed record, rates against the window's baseline and Burrow's
 * rules over the facts each pair keeps. Samples the pairs as it goes.
 */
public final class PairFigures {

  private final WindowSlots slots;
  private final PartitionTable partitions;
  private final AgeBook ages;
  private final boolean fromEarliest;

  /**
   * @param ages the exact ages, or null to estimate them from the partitions' offset-time tables
   */
  public PairFigures(
      WindowSlots slots, PartitionTable partitions, AgeBook ages, boolean fromEarliest) {
    this.slots = slots;
    this.partitions = partitions;
    this.ages = ages;
    this.fromEarliest = fromEarliest;
  }

  /** Where a row's oldest unconsumed record sits, or -1 when nothing waits or it is unknown. */
  public long waitingAt(GroupWindows w, int row) {
    int id = w.id(row);
    long end = partitions.end(id);
    if (end < 0) {
      return -1;
    }
    long committed = w.committed(row);
    long position = committed >= 0 ? committed : fromEarliest ? partitions.start(id) : end;
    return position >= 0 && position < end ? position : -1;
  }

  /** Fills the group's rows, sorted by topic and partition, sampling each pair. */
  public GroupRows rows(
      String group,
      GroupWindows w,
      Owner[] owners,
      TickPartitions figures,
      long now,
      long previousTickAt,
      int opened) {
    int[] order = w.order(partitions);
    GroupRows rows =
        new GroupRows(group, figures, owners, ages == null, slots.windowMillis(), order.length);
    for (int k = 0; k < order.length; k++) {
      int row = order[k];
      int id = w.id(row);
      long committed = w.committed(row);
      long end = partitions.end(id);
      if (end < 0) {
        rows.unknown(k, id, committed, partitions.problem(id));
        continue;
      }
      long lag = lag(committed, end, partitions.start(id));
      w.sample(row, now, previousTickAt, lag, opened);
      known(rows, k, w, row, id, committed, lag, now);
    }
    return rows;
  }

  private void known(
      GroupRows rows, int k, GroupWindows w, int row, int id, long committed, long lag, long now) {
    long window = slots.windowMillis();
    int base = w.baseline(row, slots, partitions);
    boolean two = base >= 0 && slots.timeOf(base) < now;
    long windowStart = two ? slots.timeOf(base) : Long.MIN_VALUE;
    long span = two ? now - windowStart : 0;
    long baseCommitted = two ? w.committedAt(row, base) : committed;
    long baseLag = two ? baseLag(id, base, baseCommitted, lag) : lag;
    double seconds = span / 1000.0;
    double commitRate =
        two && committed >= 0 && baseCommitted >= 0
            ? Math.max(0, committed - baseCommitted) / seconds
            : 0;
    double growth = two ? (lag - baseLag) / seconds : 0;
    Rewind rewind = w.rewind(row);
    boolean rewound = rewind != null && rewind.at() >= windowStart;
    if (rewind != null && !rewound) {
      w.forgetRewind(row);
    }
    long zeroAt = w.zeroAt(row);
    boolean zeroInWindow = zeroAt != Long.MIN_VALUE && zeroAt >= windowStart;
    long sinceAdvance = now - w.lastAdvance(row);
    boolean owned = w.owner(row) >= 0;
    Finding f =
        Finding.assess(
            two ? 2 : 1,
            rewound,
            lag,
            sinceAdvance,
            window,
            owned,
            zeroInWindow,
            baseLag,
            baseCommitted,
            committed);
    long a =
        switch (f) {
          case REWIND -> rewind.from();
          case STALL, STOP -> sinceAdvance;
          default -> baseLag;
        };
    long b = f == Finding.REWIND ? rewind.to() : span;
    long waitingAt = waitingAt(w, row);
    long age = ageMillis(id, waitingAt, lag, now);
    if (ages != null && age > 0 && !ages.exact(id, waitingAt)) {
      rows.ageEstimated(k); // an older record's age, the one at the offset not read in time
    }
    rows.known(k, id, committed, lag, age, w.owner(row), commitRate, growth, span, f, a, b);
  }

  private long lag(long committed, long end, long start) {
    if (committed >= 0) {
      return Math.max(0, end - committed);
    }
    return fromEarliest && start >= 0 ? Math.max(0, end - start) : 0;
  }

  private long baseLag(int id, int base, long baseCommitted, long lagNow) {
    long end = partitions.endAt(id, base);
    if (baseCommitted >= 0) {
      return Math.max(0, end - baseCommitted);
    }
    long start = partitions.startAt(id, base);
    if (!fromEarliest) {
      return 0;
    }
    // Without the log start of then, assume the lag of now: no growth claimed.
    return start == MISSING || start < 0 ? lagNow : Math.max(0, end - start);
  }

  private long ageMillis(int id, long position, long lag, long now) {
    if (lag == 0 || position < 0) {
      return 0;
    }
    long producedAt;
    if (ages == null) {
      producedAt = partitions.table(id).producedAt(position).toEpochMilli();
    } else {
      producedAt = ages.timestamp(id, position);
      if (producedAt < 0) {
        // Nothing waiting (transaction markers only) or not read in time: no age to claim.
        return 0;
      }
    }
    return Math.max(0, now - producedAt);
  }
}
