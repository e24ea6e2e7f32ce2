package dev.courier.backpressure;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The alert rules and dashboard in deploy/ use only series the monitor and admission control really
 * export, and every alert carries an owner, so a renamed meter cannot silently break them.
 */
class DeployArtifactsTest {

  private static final Path DEPLOY = Path.of("../../deploy");
  private static final Pattern SERIES = Pattern.compile("courier_[a-z_]+");

  @Test
  void rulesAndDashboardReferenceExportedSeries() throws Exception {
    Set<String> exported = exportedSeries();
    JsonNode rules =
        new ObjectMapper(new YAMLFactory())
            .readTree(DEPLOY.resolve("prometheus/courier-backpressure-rules.yml").toFile());
    List<String> exprs = new ArrayList<>();
    for (JsonNode group : rules.get("groups")) {
      for (JsonNode rule : group.get("rules")) {
        assertThat(rule.at("/labels/owner").asText()).as(rule.get("alert").asText()).isNotBlank();
        exprs.add(rule.get("expr").asText());
      }
    }
    JsonNode dashboard =
        new ObjectMapper().readTree(DEPLOY.resolve("grafana/courier-backpressure.json").toFile());
    dashboard.findValues("expr").forEach(e -> exprs.add(e.asText()));
    dashboard.findValues("query").forEach(e -> exprs.add(e.asText()));

    Set<String> referenced = new HashSet<>();
    for (String expr : exprs) {
      Matcher m = SERIES.matcher(expr);
      while (m.find()) {
        referenced.add(m.group());
      }
    }
    assertThat(referenced).hasSizeGreaterThan(8);
    assertThat(exported).containsAll(referenced);
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
            Map.of("billing", GroupLag.of("billing", "Stable", 1, List.of(p)))));
    metrics.failedTick();
    AdmissionController.builder().registry(registry).build().tryAdmit(Work.ofBytes(1));
    Set<String> names = new HashSet<>();
    for (String line : registry.scrape().split("\n")) {
      Matcher m = SERIES.matcher(line);
      if (!line.startsWith("#") && m.lookingAt()) {
        names.add(m.group());
      }
    }
    return names;
  }
}
