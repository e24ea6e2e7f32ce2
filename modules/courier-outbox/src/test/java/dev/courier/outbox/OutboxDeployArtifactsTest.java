package dev.courier.outbox;

import static org.assertj.core.api.Assertions.assertThat;

import dev.courier.outbox.internal.OutboxMetrics;
import dev.courier.testkit.DeployChecks;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The relay's alert rules use only series the relay exports, and each has an owner. */
class OutboxDeployArtifactsTest {

  @Test
  void rulesReferenceExportedSeries() {
    Path rules = DeployChecks.deployDirectory().resolve("prometheus/courier-outbox-rules.yml");
    assertThat(DeployChecks.alertsWithoutOwner(rules)).isEmpty();
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    OutboxMetrics metrics = new OutboxMetrics(registry, "app-relay");
    metrics.leader.set(1);
    metrics.takeovers.increment();
    metrics.takeover.record(Duration.ofSeconds(2));
    assertThat(DeployChecks.seriesUsedIn(rules))
        .contains("courier_outbox_leader", "courier_outbox_leader_takeovers_total");
    assertThat(DeployChecks.seriesIn(registry.scrape()))
        .contains("courier_outbox_leader_takeover_seconds_count")
        .containsAll(DeployChecks.seriesUsedIn(rules));
  }
}
