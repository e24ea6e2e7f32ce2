package dev.courier.retry;

import static org.assertj.core.api.Assertions.assertThat;

import dev.courier.retry.internal.LadderProgress;
import dev.courier.retry.internal.OrderMetrics;
import dev.courier.retry.internal.RetryMetrics;
import dev.courier.testkit.DeployChecks;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The retry alert rules use only series the retry consumer exports, and each has an owner. */
class RetryDeployArtifactsTest {

  @Test
  void rulesReferenceExportedSeries() {
    Path rules = DeployChecks.deployDirectory().resolve("prometheus/courier-retry-rules.yml");
    assertThat(DeployChecks.alertsWithoutOwner(rules)).isEmpty();
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    RetryMetrics metrics = new RetryMetrics(registry, "billing", "orders", 2);
    metrics.attempt(1);
    metrics.deadLettered("permanent");
    metrics.lateness.record(Duration.ofMillis(5));
    metrics.callsPerOperation.record(2);
    metrics.budgetWaits.increment();
    OrderMetrics order =
        new OrderMetrics(registry, "billing", "orders", metrics, new LadderProgress());
    order.overflows.increment();
    order.lost.increment();
    assertThat(DeployChecks.seriesUsedIn(rules)).hasSizeGreaterThanOrEqualTo(4);
    assertThat(DeployChecks.seriesIn(registry.scrape()))
        .containsAll(DeployChecks.seriesUsedIn(rules));
  }
}
