package dev.courier.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.courier.testkit.JvmWorker;
import dev.courier.testkit.WorkerProcess;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The image's ahead-of-time cache, made and used as {@code deploy/docker/Dockerfile} does, from the
 * packaged jar on a Java 25 JDK: {@code -Dcourier.aot.java.home}, else the first one under {@code
 * /usr/lib/jvm}. {@code -XX:AOTMode=on} makes the JVM exit if it cannot use the cache, so a cache
 * the entrypoint's class path (with a plugin jar after the jar) does not fit fails here.
 */
class AotCacheIT {

  private static final Duration TIMEOUT = Duration.ofMinutes(2);
  private static final Pattern VERSION = Pattern.compile("^JAVA_VERSION=\"(\\d+)");

  @TempDir Path dir;

  @Test
  void aCacheTrainedWithoutPostgresOrKafkaIsUsedByTheServicesEntrypoint() throws IOException {
    Optional<Path> java = java25();
    assumeTrue(java.isPresent(), "no Java 25 JDK (-Dcourier.aot.java.home or /usr/lib/jvm)");
    Path jar = Path.of("target", "courier.jar").toAbsolutePath();
    Path cache = dir.resolve("courier.aot");
    Path plugins = Files.createDirectories(dir.resolve("plugins"));
    Files.copy(jar, plugins.resolve("handler.jar"));

    WorkerProcess training =
        run(java.get(), jar.toString(), "-XX:AOTCacheOutput=" + cache, "aot-training");
    assertThat(training.awaitExit(TIMEOUT)).as(training.output()).isZero();
    // Its output ends with the JVM's own lines (classes it leaves out of the cache, the assembly).
    assertThat(training.output()).contains("AOTCache creation is complete");
    assertThat(cache).isNotEmptyFile();

    WorkerProcess service =
        run(
            java.get(),
            jar + ":" + plugins + "/*",
            // With C1 only, as the relay's manifest starts it (deploy/k8s/courier-relay.yaml).
            "-XX:AOTMode=on -XX:AOTCache=" + cache + " -XX:TieredStopAtLevel=1",
            "relay",
            "--help");
    assertThat(service.awaitExit(TIMEOUT)).as(service.output()).isZero();
    assertThat(service.output()).contains("Usage: courier relay");
  }

  private static WorkerProcess run(Path home, String classpath, String options, String... args) {
    JvmWorker worker =
        JvmWorker.of(Courier.class).name("aot").javaHome(home).classpath(classpath).args(args);
    for (String option : options.split(" ")) {
      worker.jvmOption(option);
    }
    return worker.start();
  }

  private static Optional<Path> java25() throws IOException {
    String configured = System.getProperty("courier.aot.java.home");
    if (configured != null && !configured.isBlank()) {
      return Optional.of(Path.of(configured));
    }
    Path jvms = Path.of("/usr/lib/jvm");
    if (!Files.isDirectory(jvms)) {
      return Optional.empty();
    }
    try (Stream<Path> homes = Files.list(jvms)) {
      return homes.sorted().filter(AotCacheIT::isJava25OrLater).findFirst();
    }
  }

  private static boolean isJava25OrLater(Path home) {
    Path release = home.resolve("release");
    if (!Files.isRegularFile(release) || !Files.isExecutable(home.resolve("bin/java"))) {
      return false;
    }
    try {
      List<String> lines = Files.readAllLines(release);
      return lines.stream()
          .map(VERSION::matcher)
          .filter(Matcher::find)
          .anyMatch(m -> Integer.parseInt(m.group(1)) >= 25);
    } catch (IOException e) {
      return false;
    }
  }
}
