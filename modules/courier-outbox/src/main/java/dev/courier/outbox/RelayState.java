package dev.courier.outbox;

import dev.courier.core.ServiceHealth;
import java.time.Clock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Where the relay stands, for /health and for the log: each change of state or reason is logged
 * once, with the real cause, however often the relay retries in the meantime.
 */
final class RelayState {

  private static final Logger LOG = LoggerFactory.getLogger(RelayState.class);

  private final Clock clock;
  private volatile ServiceHealth current;
  private ServiceHealth lastLogged;

  RelayState(Clock clock) {
    this.clock = clock;
    this.current = ServiceHealth.waiting("STARTING", "starting", clock.instant());
  }

  ServiceHealth current() {
    return current;
  }

  void waiting(String status, String reason) {
    set(ServiceHealth.waiting(status, reason, clock.instant()));
  }

  void streaming(String reason) {
    set(ServiceHealth.up("STREAMING", reason, clock.instant()));
  }

  void stopping() {
    set(
        ServiceHealth.waiting(
            "STOPPING",
            "stopping: the batch in flight finishes, the position is stored",
            clock.instant()));
  }

  void failed(String reason) {
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
  synchronized void log(ServiceHealth effective) {
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
