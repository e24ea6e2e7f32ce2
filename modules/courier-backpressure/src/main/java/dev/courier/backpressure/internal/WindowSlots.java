package dev.courier.backpressure.internal;

import java.time.Duration;

/**
 * The monitor's shared clock of window samples: a ring of sample times one step (a {@link
 * #BUCKETS}th of the window) apart, plus the one just before the window so a full window always has
 * a baseline. Every partition and pair keeps its values in rings indexed like this one, so a sample
 * time is stored once, not once per pair, and a pair's memory does not grow with the ticks that fit
 * in the window (at a 1 s tick and a 120 s window that was 120 samples per pair).
 */
public final class WindowSlots {

  /** Steps per window: rates start within a step of the window's start. */
  public static final int BUCKETS = 8;

  /** Ring size: the steps of one window, the baseline before it, and the current step. */
  public static final int SLOTS = BUCKETS + 2;

  /** A slot with no value for a pair or partition (it did not exist yet). */
  public static final long MISSING = Long.MIN_VALUE;

  private final long windowMillis;
  private final long stepMillis;
  private final long[] at = new long[SLOTS];
  private int head;
  private int size;

  public WindowSlots(Duration window) {
    this.windowMillis = window.toMillis();
    this.stepMillis = Math.max(1, windowMillis / BUCKETS);
  }

  public long windowMillis() {
    return windowMillis;
  }

  /**
   * Called once per tick: opens a slot for this tick when the newest is a step old (returning its
   * ring index, which callers overwrite for everything they sample), else returns -1; drops slots
   * that left the window.
   */
  public int advance(long nowMillis) {
    int opened = -1;
    if (size == 0 || nowMillis - at[physical(size - 1)] >= stepMillis) {
      if (size == SLOTS) {
        head = (head + 1) % SLOTS;
        size--;
      }
      opened = physical(size);
      at[opened] = nowMillis;
      size++;
    }
    long horizon = nowMillis - windowMillis;
    while (size > 1 && at[physical(1)] <= horizon) {
      head = (head + 1) % SLOTS;
      size--;
    }
    return opened;
  }

  /** Slots in the window, oldest first. */
  public int size() {
    return size;
  }

  /** The ring index of the k-th oldest slot. */
  public int physical(int k) {
    return (head + k) % SLOTS;
  }

  public long at(int k) {
    return at[physical(k)];
  }

  /**
   * The oldest slot in the window where both rings hold a value, as a ring index, or -1. {@code
   * base} is where the caller's slots start in each ring.
   */
  public int baseline(long[] ring, int base, long[] other, int otherBase) {
    for (int k = 0; k < size; k++) {
      int p = physical(k);
      if (ring[base + p] != MISSING && other[otherBase + p] != MISSING) {
        return p;
      }
    }
    return -1;
  }

  /** The time of a ring index. */
  public long timeOf(int physical) {
    return at[physical];
  }
}
