package dev.courier.spring;

import dev.courier.core.ServiceHealth;
import java.util.function.Supplier;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;

/**
 * A Courier component's {@link ServiceHealth} as an Actuator health indicator. Ready is {@code UP};
 * a component that failed for good is {@code DOWN}; one that is waiting (for PostgreSQL, Kafka, the
 * leadership) reports its own state ({@code RECOVERING}, {@code DEGRADED}, ...), a status Spring
 * Boot's default aggregation leaves out and answers with HTTP 200: the application stays in
 * service, since its writes still go to the outbox while Kafka is away, and the details say why. A
 * standby relay is {@code UP}: with several replicas, all but one stand by by design.
 */
public final class CourierHealth implements HealthIndicator {

  private final Supplier<ServiceHealth> health;

  public CourierHealth(Supplier<ServiceHealth> health) {
    this.health = health;
  }

  @Override
  public Health health() {
    ServiceHealth current = health.get();
    Status status;
    if (current.ready() || "STANDBY".equals(current.status())) {
      status = Status.UP;
    } else if (!current.live()) {
      status = Status.DOWN;
    } else {
      status = new Status(current.status(), current.reason());
    }
    return Health.status(status)
        .withDetail("state", current.status())
        .withDetail("reason", current.reason())
        .withDetail("since", current.since().toString())
        .build();
  }
}
