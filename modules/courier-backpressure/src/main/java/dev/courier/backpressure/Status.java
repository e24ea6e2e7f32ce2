package dev.courier.backpressure;

/**
 * Health of a consumer group or partition over the evaluation window, with Burrow's names. {@link
 * #code()} is the value of the {@code courier_monitor_status} gauge.
 */
public enum Status {
  /** Caught up at some point in the window, or lag not growing. */
  OK(0),
  /** Committed offsets advance but lag grows across the window. */
  WARN(1),
  /** Group level: at least one partition is STALL or STOP. */
  ERR(2),
  /** Lag exists and nothing has been committed for longer than the window; no member owns it. */
  STOP(3),
  /** Lag exists, a member owns the partition, and its committed offset has not moved all window. */
  STALL(4),
  /** The committed offset moved backwards within the window (a reset or a replay). */
  REWIND(5),
  /**
   * No figures: the group does not exist (yet, or any more), its topic was deleted, or the
   * partition has no leader. The reason says which; the rest of the monitor is not affected.
   */
  UNKNOWN(6);

  private final int code;

  Status(int code) {
    this.code = code;
  }

  public int code() {
    return code;
  }

  /** The more severe of two statuses, for rolling partitions up to their group. */
  public Status worse(Status other) {
    return groupSeverity() >= other.groupSeverity() ? this : other;
  }

  private int groupSeverity() {
    return switch (this) {
      case OK -> 0;
      case REWIND -> 1;
      case WARN -> 2;
      case UNKNOWN -> 1;
      case ERR, STALL, STOP -> 3;
    };
  }
}
