package dev.courier.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.courier.core.ServiceHealth;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;

/** How a component's own health reads on /actuator/health. */
class CourierHealthTest {

  private static final Instant SINCE = Instant.parse("2026-12-03T10:00:00Z");

  private static Health of(ServiceHealth health) {
    return new CourierHealth(() -> health).health();
  }

  @Test
  void readyIsUpWithTheComponentsStateAndReason() {
    Health health = of(ServiceHealth.up("STREAMING", "streaming from slot s", SINCE));
    assertThat(health.getStatus()).isEqualTo(Status.UP);
    assertThat(health.getDetails())
        .containsEntry("state", "STREAMING")
        .containsEntry("reason", "streaming from slot s")
        .containsEntry("since", SINCE.toString());
  }

  @Test
  void aStandbyRelayIsUpSinceAllButOneReplicaStandBy() {
    assertThat(of(ServiceHealth.waiting("STANDBY", "another leads", SINCE)).getStatus())
        .isEqualTo(Status.UP);
  }

  @Test
  void waitingIsItsOwnStatusAndFailedIsDown() {
    assertThat(of(ServiceHealth.waiting("RECOVERING", "PostgreSQL lost", SINCE)).getStatus())
        .isEqualTo(new Status("RECOVERING"));
    assertThat(of(ServiceHealth.failed("bad slot", SINCE)).getStatus()).isEqualTo(Status.DOWN);
  }
}
