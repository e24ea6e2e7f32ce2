package dev.courier.backpressure.internal;

import dev.courier.backpressure.OffsetSample;
import dev.courier.backpressure.Rates;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Optional;

/**
 * The sliding window of samples of one (group, topic, partition): keeps the samples of the last
 * {@code window} (plus the one just before it, so a full window always has a baseline), remembers
 * when the committed offset last moved, and derives the rates.
 */
public final class PartitionWindow {

  private final Duration window;
  private final Deque<OffsetSample> samples = new ArrayDeque<>();
  private Instant lastAdvance;

  public PartitionWindow(Duration window) {
    this.window = window;
  }

  public void add(OffsetSample sample) {
    OffsetSample previous = samples.peekLast();
    if (previous == null
        || previous.committedOffset() != sample.committedOffset()
        || sample.lag() == 0) {
      // Caught up counts as progress: there was nothing left to commit.
      lastAdvance = sample.at();
    }
    samples.addLast(sample);
    Instant horizon = sample.at().minus(window);
    while (samples.size() > 1) {
      OffsetSample head = samples.pollFirst();
      if (samples.peekFirst().at().isAfter(horizon)) {
        samples.addFirst(head);
        break;
      }
    }
  }

  public List<OffsetSample> samples() {
    return List.copyOf(samples);
  }

  public Instant lastAdvance() {
    return lastAdvance;
  }

  public Rates rates() {
    if (samples.size() < 2) {
      return Rates.NONE;
    }
    OffsetSample first = samples.peekFirst();
    OffsetSample last = samples.peekLast();
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
