package dev.courier.retry;

import dev.courier.core.Choice;

/** The shape of the delays between attempts ({@code retry.backoff}). */
public enum BackOffType implements Choice {
  /** Full jitter: uniform in [0, min(max, initial * 2^(retry-1))]. */
  EXPONENTIAL,
  /** Always the initial delay. */
  FIXED;
}
