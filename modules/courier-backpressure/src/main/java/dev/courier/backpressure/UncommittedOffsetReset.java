package dev.courier.backpressure;

import dev.courier.core.Choice;

/**
 * Where the watched groups start on a partition they own but never committed (their {@code
 * auto.offset.reset}), which decides that partition's lag ({@code
 * monitor.uncommitted.offset.reset}).
 */
public enum UncommittedOffsetReset implements Choice {
  /** The whole retained log is lag. */
  EARLIEST,
  /** No lag until the group commits. */
  LATEST;
}
