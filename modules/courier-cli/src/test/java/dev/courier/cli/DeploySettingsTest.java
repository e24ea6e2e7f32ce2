package dev.courier.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLParser;
import dev.courier.backpressure.MonitorConfig;
import dev.courier.core.ClientSettings;
import dev.courier.testkit.DeployChecks;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.Yaml;

/**
 * The settings docker-compose.yml and the Kubernetes ConfigMaps give each service are keys that
 * service declares, with values it accepts: a typo in a deployment file fails here, not at 3 a.m.
 */
class DeploySettingsTest {

  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

  /** The java launcher's variable of JVM options. */
  private static final String JVM = "JDK_JAVA_OPTIONS";

  private static final Map<String, ConfigDef> SERVICES =
      Map.of(
          "relay", RelayCommand.DEFINITION,
          "monitor", MonitorConfig.configDef(),
          "retry-worker", RetryWorkerCommand.DEFINITION);

  @Test
  void composeServicesTakeOnlySettingsTheyDeclare() throws Exception {
    Path compose = DeployChecks.deployDirectory().getParent().resolve("docker-compose.yml");
    // SnakeYAML resolves the anchors, aliases and merge keys compose files use; Jackson's tree
    // reader would leave an alias such as the standby's "*relay-environment" unresolved.
    Object document = new Yaml().load(Files.readString(compose));
    JsonNode services = YAML.valueToTree(document).get("services");
    List<String> checked = new ArrayList<>();
    services
        .fields()
        .forEachRemaining(
            e -> {
              JsonNode command = e.getValue().get("command");
              if (command == null || !SERVICES.containsKey(command.get(0).asText())) {
                return;
              }
              Map<String, String> env = new HashMap<>();
              e.getValue()
                  .get("environment")
                  .fields()
                  .forEachRemaining(v -> env.put(v.getKey(), v.getValue().asText()));
              // The java launcher's own variable, not a Courier setting.
              env.remove(JVM);
              check(command.get(0).asText(), env);
              checked.add(e.getKey());
            });
    assertThat(checked)
        .containsExactlyInAnyOrder(
            "courier-relay", "courier-relay-standby", "courier-monitor", "courier-retry-worker");
  }

  @Test
  void kubernetesConfigMapsTakeOnlySettingsTheirServiceDeclares() throws Exception {
    Path k8s = DeployChecks.deployDirectory().resolve("k8s");
    List<String> checked = new ArrayList<>();
    for (String service : SERVICES.keySet()) {
      Path file = k8s.resolve("courier-" + service + ".yaml");
      try (YAMLParser parser = new YAMLFactory().createParser(Files.readString(file))) {
        for (JsonNode doc : YAML.readValues(parser, JsonNode.class).readAll()) {
          if (doc.path("kind").asText().equals("ConfigMap")) {
            Map<String, String> env = new HashMap<>();
            doc.get("data")
                .fields()
                .forEachRemaining(v -> env.put(v.getKey(), v.getValue().asText()));
            if (service.equals("relay")) {
              // The relay's password comes from a Secret, not the ConfigMap.
              env.putIfAbsent("COURIER_DATABASE_PASSWORD", "from-a-secret");
            }
            check(service, env);
            checked.add(service);
          }
        }
      }
    }
    assertThat(checked).containsExactlyInAnyOrderElementsOf(SERVICES.keySet());
  }

  @Test
  void theRelayRunsWithTheSameJvmOptionsInComposeAndKubernetes() throws Exception {
    Path compose = DeployChecks.deployDirectory().getParent().resolve("docker-compose.yml");
    JsonNode services =
        YAML.valueToTree(new Yaml().load(Files.readString(compose))).get("services");
    String composed = services.path("courier-relay").path("environment").path(JVM).asText();
    String kubernetes = null;
    Path relay = DeployChecks.deployDirectory().resolve("k8s").resolve("courier-relay.yaml");
    try (YAMLParser parser = new YAMLFactory().createParser(Files.readString(relay))) {
      for (JsonNode doc : YAML.readValues(parser, JsonNode.class).readAll()) {
        for (JsonNode container :
            doc.path("spec").path("template").path("spec").path("containers")) {
          for (JsonNode env : container.path("env")) {
            if (env.path("name").asText().equals(JVM)) {
              kubernetes = env.path("value").asText();
            }
          }
        }
      }
    }
    // What BENCHMARKS.md measured the relay with (RelayJvm in courier-benchmarks).
    assertThat(composed).isEqualTo("-XX:TieredStopAtLevel=1");
    assertThat(kubernetes).isEqualTo(composed);
    assertThat(services.path("courier-relay-standby").path("environment").path(JVM).asText())
        .isEqualTo(composed);
  }

  /** Resolves the variables as the service does and fails on any unknown or invalid one. */
  private static void check(String service, Map<String, String> env) {
    List<String> warnings = new ArrayList<>();
    Map<String, String> settings =
        new CliSettings(SERVICES.get(service), List.of(ClientSettings.PREFIX))
            .resolve(null, env, List.of(), warnings);
    assertThat(warnings).as(service).isEmpty();
    assertThat(settings).as(service).hasSize(env.size());
    new AbstractConfig(SERVICES.get(service), settings, false);
  }
}
