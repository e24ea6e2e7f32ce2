package dev.courier.backpressure.internal;

import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Iterator;

/**
 * The estimate mode's table for one partition: (log-end offset, time) points sampled each tick, and
 * the time an offset was produced found by linear interpolation between the two points around it.
 * Cheap (no fetch) but an estimate: wrong by up to a tick on idle topics and during bursts, which
 * is why figures from it are labelled as estimates.
 */
public final class OffsetTimeTable {

  private record Point(long offset, Instant at) {}

  private final int capacity;
  private final Deque<Point> points = new ArrayDeque<>();

  public OffsetTimeTable(int capacity) {
    if (capacity < 2) {
      throw new IllegalArgumentException("capacity must be >= 2, got " + capacity);
    }
    this.capacity = capacity;
  }

  /** Records that the log ended at {@code logEndOffset} at {@code at}. */
  public void add(long logEndOffset, Instant at) {
    Point last = points.peekLast();
    if (last != null && last.offset() == logEndOffset) {
      // An idle partition: keep the earliest time the offset was seen, it bounds the produce time.
      return;
    }
    points.addLast(new Point(logEndOffset, at));
    if (points.size() > capacity) {
      points.removeFirst();
    }
  }

  /**
   * When the record at {@code offset} was (about) produced: interpolated between the samples around
   * it, or the oldest sample's time when it is older than the table.
   */
  public Instant producedAt(long offset) {
    if (points.isEmpty()) {
      throw new IllegalStateException("no samples");
    }
    Point before = null;
    Iterator<Point> it = points.iterator();
    while (it.hasNext()) {
      Point p = it.next();
      if (p.offset() > offset) {
        if (before == null) {
          return p.at();
        }
        double fraction = (offset - before.offset()) / (double) (p.offset() - before.offset());
        long span = p.at().toEpochMilli() - before.at().toEpochMilli();
        return Instant.ofEpochMilli(before.at().toEpochMilli() + (long) (fraction * span));
      }
      before = p;
    }
    return before.at();
  }
}
