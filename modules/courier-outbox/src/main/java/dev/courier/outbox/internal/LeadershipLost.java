package dev.courier.outbox.internal;

/**
 * This relay no longer leads its slot (another took over, or its lease lapsed while it was frozen
 * or cut off): it must publish nothing more and acknowledge nothing, and waits as a standby.
 */
public final class LeadershipLost extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public LeadershipLost(String message) {
    super(message);
  }
}
