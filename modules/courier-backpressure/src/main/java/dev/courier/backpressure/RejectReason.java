package dev.courier.backpressure;

/** Why work was refused; the {@code reason} tag of {@code courier_admission_decisions_total}. */
public enum RejectReason {
  /** Too many admitted and unfinished units (ready plus in flight). */
  IN_FLIGHT("in_flight"),
  /** Too many admitted and unfinished bytes. */
  BYTES("bytes"),
  /** A watched group's oldest unconsumed record is older than the limit. */
  OLDEST_AGE("oldest_age"),
  /** A watched group's lag grows faster than the limit. */
  LAG_GROWTH("lag_growth"),
  /**
   * A watched group's backlog is unknown or stale and the controller refuses then ({@link
   * UnknownBacklog#REFUSE}).
   */
  NO_SIGNAL("no_signal");

  private final String tag;

  RejectReason(String tag) {
    this.tag = tag;
  }

  public String tag() {
    return tag;
  }
}
