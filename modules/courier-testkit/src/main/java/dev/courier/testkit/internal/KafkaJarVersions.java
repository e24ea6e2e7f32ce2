package dev.courier.testkit.internal;

import dev.courier.testkit.InfraStartupException;
import java.io.IOException;
import java.net.URL;
import java.util.Collections;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The Apache Kafka artifacts on the classpath and their versions: the embedded broker runs only
 * when they are one version. A Spring Boot build manages some of them ({@code kafka.version}) and
 * not the broker's others, which then come at the testkit's version; the broker died of it at class
 * initialisation ({@code NoClassDefFoundError ... GroupCoordinatorConfig.<clinit>}), far from the
 * fix. This names the artifacts, their versions and the fix before any broker class loads.
 */
public final class KafkaJarVersions {

  /** {@code .../org/apache/kafka/<artifact>/<version>/<artifact>-<version>.jar}, Maven's layout. */
  private static final Pattern MAVEN_JAR =
      Pattern.compile("/org/apache/kafka/([^/]+)/([^/]+)/\\1-\\2\\.jar");

  private KafkaJarVersions() {}

  /** Artifact to version, of every Kafka jar in Maven's layout that {@code loader} sees. */
  public static Map<String, String> on(ClassLoader loader) {
    Map<String, String> versions = new TreeMap<>();
    try {
      for (URL url : Collections.list(loader.getResources("META-INF/MANIFEST.MF"))) {
        Matcher m = MAVEN_JAR.matcher(url.toString());
        if (m.find()) {
          versions.put(m.group(1), m.group(2));
        }
      }
    } catch (IOException e) {
      return versions; // nothing to compare: the broker's own error will have to do
    }
    return versions;
  }

  /**
   * @throws InfraStartupException naming the artifacts of each version and the fix, when the Kafka
   *     artifacts are of more than one version
   */
  public static void requireOne(Map<String, String> versions) {
    Map<String, Set<String>> byVersion = new TreeMap<>();
    versions.forEach(
        (artifact, version) ->
            byVersion.computeIfAbsent(version, v -> new TreeSet<>()).add(artifact));
    if (byVersion.size() <= 1) {
      return;
    }
    String clients = versions.getOrDefault("kafka-clients", "?");
    StringBuilder mixed = new StringBuilder();
    byVersion.forEach(
        (version, artifacts) ->
            mixed.append("\n  ").append(version).append(": ").append(artifacts));
    String other =
        byVersion.keySet().stream().filter(v -> !v.equals(clients)).findFirst().orElse("?");
    throw new InfraStartupException(
        "the embedded Kafka broker needs every org.apache.kafka artifact at one version; this"
            + " classpath mixes"
            + mixed
            + "\nkafka-clients is "
            + clients
            + ". In a Spring Boot build, which manages some Kafka artifacts with the property"
            + " kafka.version and not the broker's others: set <kafka.version>"
            + other
            + "</kafka.version> in the POM's <properties> (every Kafka artifact then comes at "
            + other
            + "), or manage the artifacts listed at "
            + clients
            + " at ${kafka.version} in <dependencyManagement>. See docs/testing.md#kafka-versions.");
  }
}
