package dev.courier.backpressure.internal;

import dev.courier.backpressure.OffsetSample;
import dev.courier.backpressure.Rates;
import dev.courier.backpressure.SampleSeries;
import java.time.Duration;
import java.time.Instant;
import java.util.AbstractList;
import java.util.List;
import java.util.Optional;

/**
 * The sliding window of samples of one (group, topic, partition): keeps the samples of the last
 * {@code window} (plus the one just before it, so a full window always has a baseline), remembers
 * when the committed offset last moved, and derives the rates. Samples sit in primitive rings, not
 * objects: a monitor holds one window per partition-group pair, 100,000 of them at scale.
 */
public final class PartitionWindow implements SampleSeries {

  private final long windowMillis;
  private long[] at = new long[4];
  private long[] committed = new long[4];
  private long[] end = new long[4];
  private long[] lag = new long[4];
  private int head;
  private int size;
  private long lastAdvance = Long.MIN_VALUE;

  public PartitionWindow(Duration window) {
    this.windowMillis = window.toMillis();
  }

  public void add(OffsetSample sample) {
    long t = sample.at().toEpochMilli();
    if (size == 0 || committed(size - 1) != sample.committedOffset() || sample.lag() == 0) {
      // Caught up counts as progress: there was nothing left to commit.
      lastAdvance = t;
    }
    if (size == at.length) {
      grow();
    }
    int i = (head + size) % at.length;
    at[i] = t;
    committed[i] = sample.committedOffset();
    end[i] = sample.logEndOffset();
    lag[i] = sample.lag();
    size++;
    long horizon = t - windowMillis;
    while (size > 1 && atMillis(1) <= horizon) {
      head = (head + 1) % at.length;
      size--;
    }
  }

  private void grow() {
    int n = at.length * 2;
    at = unroll(at, n);
    committed = unroll(committed, n);
    end = unroll(end, n);
    lag = unroll(lag, n);
    head = 0;
  }

  private long[] unroll(long[] ring, int capacity) {
    long[] copy = new long[capacity];
    for (int k = 0; k < size; k++) {
      copy[k] = ring[(head + k) % ring.length];
    }
    return copy;
  }

  private int index(int k) {
    return (head + k) % at.length;
  }

  private long atMillis(int k) {
    return at[index(k)];
  }

  private long committed(int k) {
    return committed[index(k)];
  }

  @Override
  public int size() {
    return size;
  }

  @Override
  public Instant at(int k) {
    return Instant.ofEpochMilli(atMillis(k));
  }

  @Override
  public long committedOffset(int k) {
    return committed(k);
  }

  @Override
  public long lag(int k) {
    return lag[index(k)];
  }

  /** The samples as objects (tests, debugging); {@code StatusEvaluator} reads the series. */
  public List<OffsetSample> samples() {
    return new AbstractList<>() {
      @Override
      public OffsetSample get(int k) {
        int i = index(k);
        return new OffsetSample(Instant.ofEpochMilli(at[i]), committed[i], end[i], lag[i]);
      }

      @Override
      public int size() {
        return size;
      }
    };
  }

  public Instant lastAdvance() {
    return Instant.ofEpochMilli(lastAdvance);
  }

  public Rates rates() {
    if (size < 2) {
      return Rates.NONE;
    }
    int f = index(0);
    int l = index(size - 1);
    long spanMillis = at[l] - at[f];
    if (spanMillis <= 0) {
      return Rates.NONE;
    }
    double seconds = spanMillis / 1000.0;
    double produce = (end[l] - end[f]) / seconds;
    double commit =
        committed[f] < 0 || committed[l] < 0
            ? 0
            : Math.max(0, committed[l] - committed[f]) / seconds;
    double growth = (lag[l] - lag[f]) / seconds;
    Optional<Duration> drain = Optional.empty();
    if (lag[l] == 0) {
      drain = Optional.of(Duration.ZERO);
    } else if (growth < 0) {
      drain = Optional.of(Duration.ofMillis((long) (lag[l] / -growth * 1000)));
    }
    return new Rates(produce, commit, growth, drain, Duration.ofMillis(spanMillis));
  }
}
