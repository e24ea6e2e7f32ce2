package dev.courier.spring;

import dev.courier.retry.RetryProgress;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;

/**
 * The retry ladder's health: one entry per {@code @KafkaListener} on it, with its topic, group,
 * counts, the records in its DLT (with when they were counted) and, when it cannot work now, why.
 * {@code DOWN} when a listener failed for good (a missing main topic, topics it may not create); a
 * listener waiting for Kafka reports {@code DEGRADED}, which Spring Boot's default aggregation
 * leaves out, so the application stays in service.
 */
public final class CourierLadderHealth implements HealthIndicator {

  private static final Status DEGRADED = new Status("DEGRADED");

  private final CourierRetryContainerFactory factory;

  public CourierLadderHealth(CourierRetryContainerFactory factory) {
    this.factory = factory;
  }

  @Override
  public Health health() {
    Status status = Status.UP;
    Map<String, Object> listeners = new LinkedHashMap<>();
    for (CourierRetryContainer container : factory.containers()) {
      Map<String, Object> details = new LinkedHashMap<>();
      details.put("topic", container.topic());
      details.put("group", container.getGroupId());
      details.put("running", container.isRunning());
      RetryProgress progress = container.progress();
      details.put("succeeded", progress.succeeded());
      details.put("retried", progress.retried());
      details.put("deadLettered", progress.deadLettered());
      details.put("dltDepth", container.dltDepth());
      // Counted every 30 s: a dead letter written since is in deadLettered, not yet in dltDepth.
      details.put(
          "dltDepthCountedAt", container.dltDepthCountedAt().map(Object::toString).orElse("never"));
      details.put("dlt", container.topics().deadLetter());
      Optional<String> problem = container.problem();
      problem.ifPresent(p -> details.put("problem", p));
      if (container.failed()) {
        status = Status.DOWN;
      } else if (problem.isPresent() && status == Status.UP) {
        status = DEGRADED;
      }
      listeners.put(container.getListenerId(), details);
    }
    return Health.status(status).withDetail("listeners", listeners).build();
  }
}
