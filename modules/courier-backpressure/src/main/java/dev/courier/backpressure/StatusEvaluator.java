package dev.courier.backpressure;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

/**
 * Burrow's rules over one partition's window of samples, oldest first. Pure: the caller supplies
 * the samples, when the committed offset last moved, and whether a live member owns the partition.
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

  private static final Verdict NO_SAMPLES = new Verdict(Status.OK, "no samples yet");
  private static final Verdict CAUGHT_UP = new Verdict(Status.OK, "caught up");
  private static final Verdict TOO_FEW = new Verdict(Status.OK, "not enough samples yet");
  private static final Verdict ZERO_IN_WINDOW =
      new Verdict(Status.OK, "lag was zero within the window");
  private static final Verdict NOT_GROWING = new Verdict(Status.OK, "lag not growing");

  public Verdict evaluate(
      List<OffsetSample> samples, Instant lastAdvance, boolean ownedByLiveMember, Instant now) {
    return evaluate(SampleSeries.of(samples), lastAdvance, ownedByLiveMember, now);
  }

  public Verdict evaluate(
      SampleSeries samples, Instant lastAdvance, boolean ownedByLiveMember, Instant now) {
    int n = samples.size();
    if (n == 0) {
      return NO_SAMPLES;
    }
    for (int i = 1; i < n; i++) {
      long before = samples.committedOffset(i - 1);
      long after = samples.committedOffset(i);
      if (before >= 0 && after >= 0 && after < before) {
        return new Verdict(
            Status.REWIND, "committed offset moved back from " + before + " to " + after);
      }
    }
    long lastLag = samples.lag(n - 1);
    if (lastLag == 0) {
      return CAUGHT_UP;
    }
    Duration sinceAdvance = Duration.between(lastAdvance, now);
    if (sinceAdvance.compareTo(window) > 0) {
      return ownedByLiveMember
          ? new Verdict(
              Status.STALL,
              "lag "
                  + lastLag
                  + " and the committed offset has not moved for "
                  + seconds(sinceAdvance)
                  + " although a member owns the partition")
          : new Verdict(
              Status.STOP,
              "lag "
                  + lastLag
                  + " and no commit for "
                  + seconds(sinceAdvance)
                  + " (longer than the "
                  + seconds(window)
                  + " window) and no member consuming");
    }
    if (n < 2) {
      return TOO_FEW;
    }
    for (int i = 0; i < n; i++) {
      if (samples.lag(i) == 0) {
        return ZERO_IN_WINDOW;
      }
    }
    long firstLag = samples.lag(0);
    long lastCommitted = samples.committedOffset(n - 1);
    if (lastLag > firstLag && lastCommitted > samples.committedOffset(0)) {
      return new Verdict(
          Status.WARN,
          "offsets advance but lag grew from "
              + firstLag
              + " to "
              + lastLag
              + " in "
              + seconds(Duration.between(samples.at(0), samples.at(n - 1))));
    }
    if (lastLag > firstLag) {
      return new Verdict(
          Status.WARN,
          "lag grew from "
              + firstLag
              + " to "
              + lastLag
              + " while the committed offset stayed at "
              + lastCommitted);
    }
    return NOT_GROWING;
  }

  private static String seconds(Duration d) {
    return String.format(java.util.Locale.ROOT, "%.1f s", d.toMillis() / 1000.0);
  }
}
