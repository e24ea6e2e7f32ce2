package dev.courier.backpressure.internal;

import dev.courier.backpressure.OffsetSample;
import dev.courier.backpressure.Rates;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;

/**
 * The sliding window of samples of one (group, topic, partition): keeps the samples of the last
 * {@code window} (plus the one just before it, so a full window always has a baseline), remembers
 * when the committed offset last moved, and derives the rates.
 */
public final class PartitionWindow {

  private final Duration window;
  private final List<OffsetSample> samples = new ArrayList<>();
  private Instant lastAdvance;

  public PartitionWindow(Duration window) {
    this.window = window;
  }

  public void add(OffsetSample sample) {
    OffsetSample previous = samples.isEmpty() ? null : samples.get(samples.size() - 1);
    if (previous == null
        || previous.committedOffset() != sample.committedOffset()
        || sample.lag() == 0) {
      // Caught up counts as progress: there was nothing left to commit.
      lastAdvance = sample.at();
    }
    samples.add(sample);
    Instant horizon = sample.at().minus(window);
    int drop = 0;
    while (drop + 1 < samples.size() && !samples.get(drop + 1).at().isAfter(horizon)) {
      drop++;
    }
    samples.subList(0, drop).clear();
  }

  /** A read-only view, valid until the next {@link #add}. */
  public List<OffsetSample> samples() {
    return Collections.unmodifiableList(samples);
  }

  public Instant lastAdvance() {
    return lastAdvance;
  }

  public Rates rates() {
    if (samples.size() < 2) {
      return Rates.NONE;
    }
    OffsetSample first = samples.get(0);
    OffsetSample last = samples.get(samples.size() - 1);
    Duration span = Duration.between(first.at(), last.at());
    double seconds = span.toNanos() / 1e9;
    if (seconds <= 0) {
      return Rates.NONE;
    }
    double produce = (last.logEndOffset() - first.logEndOffset()) / seconds;
    double commit =
        first.committedOffset() < 0 || last.committedOffset() < 0
            ? 0
            : Math.max(0, last.committedOffset() - first.committedOffset()) / seconds;
    double growth = (last.lag() - first.lag()) / seconds;
    Optional<Duration> drain = Optional.empty();
    if (last.lag() == 0) {
      drain = Optional.of(Duration.ZERO);
    } else if (growth < 0) {
      drain = Optional.of(Duration.ofMillis((long) (last.lag() / -growth * 1000)));
    }
    return new Rates(produce, commit, growth, drain, span);
  }
}
