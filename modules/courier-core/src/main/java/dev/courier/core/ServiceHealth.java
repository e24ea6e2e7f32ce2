package dev.courier.core;

import dev.courier.core.internal.Json;
import java.time.Instant;

/**
 * What a service says about itself on {@code /health}: whether it does its job now (ready: an
 * orchestrator routes to it, an operator sees why not), whether the process is healthy (live: an
 * orchestrator leaves it running while it waits out an outage), a status word and the reason in
 * words.
 */
public record ServiceHealth(
    boolean ready, boolean live, String status, String reason, Instant since) {

  public static ServiceHealth up(String status, String reason, Instant since) {
    return new ServiceHealth(true, true, status, reason, since);
  }

  /** Not ready, still live: waiting for something, or recovering. */
  public static ServiceHealth waiting(String status, String reason, Instant since) {
    return new ServiceHealth(false, true, status, reason, since);
  }

  /** Neither: the service has failed and will not recover by itself. */
  public static ServiceHealth failed(String reason, Instant since) {
    return new ServiceHealth(false, false, "FAILED", reason, since);
  }

  /** {@code {"status":"UP|DOWN","state":"...","reason":"...","since":"..."}} for readiness. */
  public String readinessJson() {
    return json(ready);
  }

  /** The same for liveness: UP unless the service has failed. */
  public String livenessJson() {
    return json(live);
  }

  private String json(boolean up) {
    return "{\"status\":\""
        + (up ? "UP" : "DOWN")
        + "\",\"state\":\""
        + Json.escape(status)
        + "\",\"reason\":\""
        + Json.escape(reason)
        + "\",\"since\":\""
        + since
        + "\"}";
  }
}
