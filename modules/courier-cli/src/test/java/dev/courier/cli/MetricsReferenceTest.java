package dev.courier.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.courier.testkit.DeployChecks;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** docs/metrics.md lists every meter Courier's components register, as Prometheus sees it. */
class MetricsReferenceTest {

  @Test
  void theReferenceIsCurrent() throws Exception {
    GeneratedDoc.assertCurrent(
        "metrics.md", MetricsReference.markdown(), MetricsReferenceTest.class.getSimpleName());
  }

  @Test
  void theLegacyNamesAreRecordedFromSeriesCourierExports() {
    Path rules =
        DeployChecks.deployDirectory().resolve("prometheus/courier-legacy-names-rules.yml");
    Set<String> used = DeployChecks.seriesUsedIn(rules);
    assertThat(used).hasSizeGreaterThan(10);
    assertThat(DeployChecks.seriesIn(MetricsReference.scrape())).containsAll(used);
  }

  @Test
  void oneNamingSchemeAndOneGroupLabel() {
    Map<String, MetricsReference.Family> families =
        MetricsReference.families(MetricsReference.scrape());
    families.values().stream()
        .filter(f -> f.name().startsWith("courier_"))
        .forEach(
            f -> {
              assertThat(f.name())
                  .as("courier_<component>_..., a component Courier has")
                  .matches(
                      "courier_(outbox|idempotency|retry|replay|schema|monitor|admission)_[a-z0-9_]+");
              assertThat(f.labels()).as(f.name()).doesNotContain("consumer", "consumer_group");
              assertThat(f.help()).as(f.name() + " has a description").isNotBlank();
            });
  }
}
