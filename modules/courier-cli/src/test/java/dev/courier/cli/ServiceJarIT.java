package dev.courier.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.jar.JarFile;
import java.util.zip.ZipEntry;
import org.junit.jupiter.api.Test;

/**
 * The built {@code courier.jar} (what {@code deploy/docker/Dockerfile} ships) holds no test
 * infrastructure and stays small; the enforcer's banned dependencies catch the same by artifact,
 * this catches it by package, whatever artifact brought it.
 */
class ServiceJarIT {

  static final long MAX_BYTES = 60L * 1024 * 1024;

  /** Packages only tests and the lab may need: a broker, Scala, containers, JUnit, PostgreSQL. */
  static final List<String> FORBIDDEN =
      List.of(
          "kafka/server/", // the broker (kafka_2.13's Scala packages)
          "kafka/log/",
          "org/apache/kafka/controller/",
          "org/apache/kafka/raft/",
          "org/apache/kafka/streams/",
          "scala/",
          "org/rocksdb/",
          "org/testcontainers/",
          "com/github/dockerjava/",
          "org/junit/",
          "org/assertj/",
          "org/awaitility/",
          "io/zonky/",
          "postgres-", // the embedded PostgreSQL binaries' archives
          "dev/courier/testkit/",
          "dev/courier/lab/",
          "dev/courier/examples/");

  @Test
  void holdsNoTestInfrastructureAndStaysUnderSixtyMegabytes() throws IOException {
    Path jar = Path.of("target", "courier.jar");
    assertThat(Files.size(jar)).as("size of %s", jar).isLessThanOrEqualTo(MAX_BYTES);
    try (JarFile file = new JarFile(jar.toFile())) {
      List<String> found =
          file.stream()
              .map(ZipEntry::getName)
              .filter(name -> FORBIDDEN.stream().anyMatch(name::startsWith))
              .limit(20)
              .toList();
      assertThat(found).as("forbidden entries in %s", jar).isEmpty();
      assertThat(file.getEntry("dev/courier/cli/Courier.class")).isNotNull();
      // slf4j-simple, not log4j2, whose configuration took about 0.6 s of each start on one core.
      assertThat(file.getEntry("org/slf4j/simple/SimpleServiceProvider.class")).isNotNull();
      assertThat(file.getEntry("simplelogger.properties")).isNotNull();
      assertThat(file.getEntry("org/apache/logging/log4j/core/LoggerContext.class"))
          .as("log4j-core in %s", jar)
          .isNull();
      assertThat(file.getManifest().getMainAttributes().getValue("Main-Class"))
          .isEqualTo(Courier.class.getName());
    }
  }
}
