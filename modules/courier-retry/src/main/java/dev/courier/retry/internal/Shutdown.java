package dev.courier.retry.internal;

import java.time.Instant;

/** Whether the consumer was asked to stop, and until when a call in flight may still finish. */
public final class Shutdown {

  private volatile Instant deadline;

  /** Asked from any thread; the loop notices at its next step. */
  public void request(Instant deadline) {
    this.deadline = deadline;
  }

  public boolean requested() {
    return deadline != null;
  }

  /** The deadline, or null while no shutdown was asked for. */
  public Instant deadline() {
    return deadline;
  }

  public boolean past(Instant now) {
    Instant d = deadline;
    return d != null && !now.isBefore(d);
  }
}
