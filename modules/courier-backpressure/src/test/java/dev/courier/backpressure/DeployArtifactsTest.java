package dev.courier.backpressure;

import static org.assertj.core.api.Assertions.assertThat;

import dev.courier.backpressure.internal.MonitorMetrics;
import dev.courier.testkit.DeployChecks;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The alert rules and dashboard in deploy/ use only series the monitor and admission control really
 * export, and every alert carries an owner, so a renamed meter cannot silently break them.
 */
class DeployArtifactsTest {

  private static final Path DEPLOY = DeployChecks.deployDirectory();

  @Test
  void rulesAndDashboardReferenceExportedSeries() {
    Path rules = DEPLOY.resolve("prometheus/courier-backpressure-rules.yml");
    Path dashboard = DEPLOY.resolve("grafana/courier-backpressure.json");
    assertThat(DeployChecks.alertsWithoutOwner(rules)).isEmpty();
    Set<String> referenced = new HashSet<>(DeployChecks.seriesUsedIn(rules));
    referenced.addAll(DeployChecks.seriesUsedIn(dashboard));
    assertThat(referenced).hasSizeGreaterThan(8);
    assertThat(exportedSeries()).containsAll(referenced);
  }

  private static Set<String> exportedSeries() {
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    MonitorMetrics metrics = new MonitorMetrics(registry, "exact");
    PartitionLag p =
        new PartitionLag(
            "billing",
            "orders",
            0,
            5,
            9,
            4,
            Duration.ofSeconds(3),
            false,
            "-",
            "-",
            "-",
            new Rates(1, 1, 0, Optional.empty(), Duration.ofSeconds(10)),
            new Verdict(Status.OK, "ok"));
    metrics.publish(
        new LagSnapshot(
            Instant.now(),
            Duration.ofMillis(5),
            3,
            1,
            Map.of(
                "billing",
                GroupLag.of("billing", "Stable", 1, List.of(p), java.time.Instant.EPOCH)),
            List.of(new LogEnd("orders", 0, 9, 1))));
    metrics.failedTick();
    AdmissionController.builder().meterRegistry(registry).build().tryAdmit(Work.ofBytes(1));
    return DeployChecks.seriesIn(registry.scrape());
  }
}
