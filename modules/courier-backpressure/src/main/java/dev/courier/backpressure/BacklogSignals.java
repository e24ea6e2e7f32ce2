package dev.courier.backpressure;

import java.util.Optional;

/**
 * Where admission control learns how far behind a consumer group is: the local {@link LagMonitor},
 * or a monitor service over HTTP ({@link #http}).
 */
public interface BacklogSignals {

  /** The group's latest figures, or empty when the monitor has not seen the group. */
  Optional<GroupLag> group(String group);

  /**
   * Reads {@code /v1/groups/{group}} of a monitor service at {@code baseUri} (for example {@code
   * http://courier-monitor:9464}), caching each answer for {@code cacheFor} so producers on a hot
   * path do not call it per record.
   */
  static BacklogSignals http(java.net.URI baseUri, java.time.Duration cacheFor) {
    return new HttpBacklogSignals(baseUri, cacheFor, java.time.Clock.systemUTC());
  }
}
