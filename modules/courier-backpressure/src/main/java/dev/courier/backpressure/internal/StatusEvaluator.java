package dev.courier.backpressure.internal;

import dev.courier.backpressure.OffsetSample;
import dev.courier.backpressure.Verdict;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

/**
 * Burrow's rules over one partition's window of samples, oldest first. Pure: the caller supplies
 * the samples, when the committed offset last moved, and whether a live member owns the partition.
 * The monitor applies the same rules to facts it keeps incrementally per partition-group pair.
 *
 * <p>Kafka's OffsetFetch does not return commit times, so "no commit" means "the committed offset
 * has not moved", and STALL (a live owner that does not progress) is told from STOP (nobody
 * progressing) by the group's membership.
 */
public final class StatusEvaluator {

  private final Duration window;

  public StatusEvaluator(Duration window) {
    if (window.isNegative() || window.isZero()) {
      throw new IllegalArgumentException("window must be positive, got " + window);
    }
    this.window = window;
  }

  public Verdict evaluate(
      List<OffsetSample> samples, Instant lastAdvance, boolean ownedByLiveMember, Instant now) {
    return evaluate(SampleSeries.of(samples), lastAdvance, ownedByLiveMember, now);
  }

  public Verdict evaluate(
      SampleSeries samples, Instant lastAdvance, boolean ownedByLiveMember, Instant now) {
    int n = samples.size();
    long rewindFrom = -1;
    long rewindTo = -1;
    boolean rewound = false;
    boolean zero = false;
    for (int i = 0; i < n; i++) {
      zero |= samples.lag(i) == 0;
      if (i > 0 && !rewound) {
        long before = samples.committedOffset(i - 1);
        long after = samples.committedOffset(i);
        if (before >= 0 && after >= 0 && after < before) {
          rewound = true;
          rewindFrom = before;
          rewindTo = after;
        }
      }
    }
    long lastLag = n == 0 ? 0 : samples.lag(n - 1);
    long sinceAdvance = n == 0 ? 0 : Duration.between(lastAdvance, now).toMillis();
    long firstLag = n == 0 ? 0 : samples.lag(0);
    long firstCommitted = n == 0 ? -1 : samples.committedOffset(0);
    long lastCommitted = n == 0 ? -1 : samples.committedOffset(n - 1);
    Finding finding =
        Finding.assess(
            n,
            rewound,
            lastLag,
            sinceAdvance,
            window.toMillis(),
            ownedByLiveMember,
            zero,
            firstLag,
            firstCommitted,
            lastCommitted);
    long a;
    long b = 0;
    switch (finding) {
      case REWIND -> {
        a = rewindFrom;
        b = rewindTo;
      }
      case STALL, STOP -> a = sinceAdvance;
      case WARN_ADVANCING -> {
        a = firstLag;
        b = Duration.between(samples.at(0), samples.at(n - 1)).toMillis();
      }
      default -> a = firstLag;
    }
    return finding.verdict(lastLag, lastCommitted, a, b, window.toMillis());
  }
}
