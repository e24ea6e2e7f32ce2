package dev.courier.backpressure.internal;

import dev.courier.backpressure.Status;
import dev.courier.backpressure.Verdict;
import java.util.Locale;

/**
 * Which of Burrow's rules decided a partition's status, kept as a code and two numbers per row and
 * put into words only when a row is read: at a million partition-group pairs a formatted reason per
 * pair and tick would cost more than the tick itself.
 */
public enum Finding {
  NO_SAMPLES(Status.OK, "no samples yet"),
  CAUGHT_UP(Status.OK, "caught up"),
  TOO_FEW(Status.OK, "not enough samples yet"),
  ZERO_IN_WINDOW(Status.OK, "lag was zero within the window"),
  NOT_GROWING(Status.OK, "lag not growing"),
  /** a: committed offset before, b: after. */
  REWIND(Status.REWIND, null),
  /** a: millis since the committed offset last moved. */
  STALL(Status.STALL, null),
  /** a: millis since the committed offset last moved. */
  STOP(Status.STOP, null),
  /** a: lag at the start of the window, b: millis the window spans. */
  WARN_ADVANCING(Status.WARN, null),
  /** a: lag at the start of the window. */
  WARN_STUCK(Status.WARN, null),
  /** No figures; the reason is kept beside the row. */
  UNKNOWN(Status.UNKNOWN, null);

  private static final Finding[] ALL = values();

  private final Status status;
  private final Verdict constant;

  Finding(Status status, String constantReason) {
    this.status = status;
    this.constant = constantReason == null ? null : new Verdict(status, constantReason);
  }

  public static Finding of(int ordinal) {
    return ALL[ordinal];
  }

  public Status status() {
    return status;
  }

  /**
   * Burrow's rules in their order. {@code samples} counts the samples in the window including the
   * current one; first* are the window's oldest sample.
   */
  public static Finding assess(
      int samples,
      boolean rewound,
      long lastLag,
      long sinceAdvanceMillis,
      long windowMillis,
      boolean ownedByLiveMember,
      boolean zeroInWindow,
      long firstLag,
      long firstCommitted,
      long lastCommitted) {
    if (samples == 0) {
      return NO_SAMPLES;
    }
    if (rewound) {
      return REWIND;
    }
    if (lastLag == 0) {
      return CAUGHT_UP;
    }
    if (sinceAdvanceMillis > windowMillis) {
      return ownedByLiveMember ? STALL : STOP;
    }
    if (samples < 2) {
      return TOO_FEW;
    }
    if (zeroInWindow) {
      return ZERO_IN_WINDOW;
    }
    if (lastLag > firstLag) {
      return lastCommitted > firstCommitted ? WARN_ADVANCING : WARN_STUCK;
    }
    return NOT_GROWING;
  }

  /** The verdict in words, from the row's lag and committed offset and the finding's numbers. */
  public Verdict verdict(long lag, long committed, long a, long b, long windowMillis) {
    if (constant != null) {
      return constant;
    }
    return switch (this) {
      case REWIND -> new Verdict(status, "committed offset moved back from " + a + " to " + b);
      case STALL ->
          new Verdict(
              status,
              "lag "
                  + lag
                  + " and the committed offset has not moved for "
                  + seconds(a)
                  + " although a member owns the partition");
      case STOP ->
          new Verdict(
              status,
              "lag "
                  + lag
                  + " and no commit for "
                  + seconds(a)
                  + " (longer than the "
                  + seconds(windowMillis)
                  + " window) and no member consuming");
      case WARN_ADVANCING ->
          new Verdict(
              status,
              "offsets advance but lag grew from " + a + " to " + lag + " in " + seconds(b));
      case WARN_STUCK ->
          new Verdict(
              status,
              "lag grew from "
                  + a
                  + " to "
                  + lag
                  + " while the committed offset stayed at "
                  + committed);
      default -> throw new IllegalStateException("no words for " + this);
    };
  }

  static String seconds(long millis) {
    return String.format(Locale.ROOT, "%.1f s", millis / 1000.0);
  }
}
