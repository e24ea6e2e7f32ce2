package dev.courier.backpressure.internal;

import dev.courier.backpressure.OffsetSample;
import java.time.Instant;
import java.util.List;

/**
 * A window of samples, oldest first, read by index: the monitor's windows keep them in primitive
 * arrays and {@link StatusEvaluator} reads them without an object per sample.
 */
public interface SampleSeries {

  int size();

  Instant at(int i);

  long committedOffset(int i);

  long lag(int i);

  /** A series over sample objects (tests, callers with their own history). */
  static SampleSeries of(List<OffsetSample> samples) {
    return new SampleSeries() {
      @Override
      public int size() {
        return samples.size();
      }

      @Override
      public Instant at(int i) {
        return samples.get(i).at();
      }

      @Override
      public long committedOffset(int i) {
        return samples.get(i).committedOffset();
      }

      @Override
      public long lag(int i) {
        return samples.get(i).lag();
      }
    };
  }
}
