package dev.courier.idempotency.internal;

import dev.courier.core.ServiceHealth;
import dev.courier.core.internal.Failures;
import java.time.Clock;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A consumer's view of its database: available, or unavailable since a transient failure and waited
 * out with a doubling delay up to a cap. Says why on {@link #health()} and logs each change once,
 * however often it retries.
 */
public final class DatabaseOutage {

  private static final Logger LOG = LoggerFactory.getLogger(DatabaseOutage.class);
  static final Duration FIRST = Duration.ofMillis(200);
  static final Duration CAP = Duration.ofSeconds(30);

  private final String name;
  private final Clock clock;
  private volatile ServiceHealth health;
  private Duration next = FIRST;

  public DatabaseOutage(String name, Clock clock) {
    this.name = name;
    this.clock = clock;
    this.health = ServiceHealth.up("RUNNING", "consuming", clock.instant());
  }

  /** A transient failure: how long to wait before the records are tried again. */
  public Duration failed(Throwable cause) {
    Duration wait = next;
    next = next.multipliedBy(2).compareTo(CAP) > 0 ? CAP : next.multipliedBy(2);
    String reason =
        "the database is unavailable ("
            + Failures.describe(cause)
            + "); nothing past the record is committed, trying again in "
            + wait.toMillis()
            + " ms";
    if (health.ready()) {
      LOG.warn("{}: {}", name, reason);
      health = ServiceHealth.waiting("WAITING", reason, clock.instant());
    } else {
      health = ServiceHealth.waiting("WAITING", reason, health.since());
    }
    return wait;
  }

  /** Records went through: the database is back, if it was away. */
  public void recovered() {
    if (!health.ready()) {
      LOG.info("{}: the database answers again; consuming", name);
      health = ServiceHealth.up("RUNNING", "consuming", clock.instant());
    }
    next = FIRST;
  }

  public ServiceHealth health() {
    return health;
  }
}
