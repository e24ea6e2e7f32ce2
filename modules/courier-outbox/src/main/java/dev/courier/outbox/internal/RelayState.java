package dev.courier.outbox.internal;

import dev.courier.core.ServiceHealth;
import java.time.Clock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Where the relay stands, for /health and for the log: each change of state or reason is logged
 * once, with the real cause, however often the relay retries in the meantime.
 */
public final class RelayState {

  private static final Logger LOG = LoggerFactory.getLogger(RelayState.class);

  private final Clock clock;
  private volatile ServiceHealth current;
  private ServiceHealth lastLogged;

  public RelayState(Clock clock) {
    this.clock = clock;
    this.current = ServiceHealth.waiting("STARTING", "starting", clock.instant());
  }

  public ServiceHealth current() {
    return current;
  }

  public void waiting(String status, String reason) {
    set(ServiceHealth.waiting(status, reason, clock.instant()));
  }

  public void streaming(String reason) {
    set(ServiceHealth.up("STREAMING", reason, clock.instant()));
  }

  public void stopping() {
    set(
        ServiceHealth.waiting(
            "STOPPING",
            "stopping: the batch in flight finishes, the position is stored",
            clock.instant()));
  }

  public void failed(String reason) {
    set(ServiceHealth.failed(reason, clock.instant()));
  }

  private synchronized void set(ServiceHealth next) {
    ServiceHealth was = current;
    if (was.status().equals(next.status()) && was.reason().equals(next.reason())) {
      return; // same state, keep its since
    }
    current = next;
  }

  /** Logs the effective health when it differs from what was logged last. */
  public synchronized void log(ServiceHealth effective) {
    if (lastLogged != null
        && lastLogged.status().equals(effective.status())
        && lastLogged.reason().equals(effective.reason())) {
      return;
    }
    lastLogged = effective;
    if (!effective.live()) {
      LOG.error("relay {}: {}", effective.status(), effective.reason());
    } else if (!effective.ready() && !effective.status().equals("STARTING")) {
      LOG.warn("relay {}: {}", effective.status(), effective.reason());
    } else {
      LOG.info("relay {}: {}", effective.status(), effective.reason());
    }
  }
}
