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

  public Verdict evaluate(
      List<OffsetSample> samples, Instant lastAdvance, boolean ownedByLiveMember, Instant now) {
    if (samples.isEmpty()) {
      return new Verdict(Status.OK, "no samples yet");
    }
    OffsetSample first = samples.get(0);
    OffsetSample last = samples.get(samples.size() - 1);
    for (int i = 1; i < samples.size(); i++) {
      long before = samples.get(i - 1).committedOffset();
      long after = samples.get(i).committedOffset();
      if (before >= 0 && after >= 0 && after < before) {
        return new Verdict(
            Status.REWIND, "committed offset moved back from " + before + " to " + after);
      }
    }
    if (last.lag() == 0) {
      return new Verdict(Status.OK, "caught up");
    }
    Duration sinceAdvance = Duration.between(lastAdvance, now);
    if (sinceAdvance.compareTo(window) > 0) {
      return ownedByLiveMember
          ? new Verdict(
              Status.STALL,
              "lag "
                  + last.lag()
                  + " and the committed offset has not moved for "
                  + seconds(sinceAdvance)
                  + " although a member owns the partition")
          : new Verdict(
              Status.STOP,
              "lag "
                  + last.lag()
                  + " and no commit for "
                  + seconds(sinceAdvance)
                  + " (longer than the "
                  + seconds(window)
                  + " window) and no member consuming");
    }
    if (samples.size() < 2) {
      return new Verdict(Status.OK, "not enough samples yet");
    }
    for (OffsetSample s : samples) {
      if (s.lag() == 0) {
        return new Verdict(Status.OK, "lag was zero within the window");
      }
    }
    if (last.lag() > first.lag() && last.committedOffset() > first.committedOffset()) {
      return new Verdict(
          Status.WARN,
          "offsets advance but lag grew from "
              + first.lag()
              + " to "
              + last.lag()
              + " in "
              + seconds(Duration.between(first.at(), last.at())));
    }
    if (last.lag() > first.lag()) {
      return new Verdict(
          Status.WARN,
          "lag grew from "
              + first.lag()
              + " to "
              + last.lag()
              + " while the committed offset stayed at "
              + last.committedOffset());
    }
    return new Verdict(Status.OK, "lag not growing");
  }

  private static String seconds(Duration d) {
    return String.format(java.util.Locale.ROOT, "%.1f s", d.toMillis() / 1000.0);
  }
}
