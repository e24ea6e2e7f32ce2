package dev.courier.benchmarks;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * The packaged {@code courier.jar} the benchmarks start relays from: {@code -Dbench.courier.jar},
 * else the build's, from the repository's root (a run by hand) or from this module (the smoke run
 * in the build).
 */
final class CourierJar {

  private static final List<Path> BUILT =
      List.of(
          Path.of("modules", "courier-cli", "target", "courier.jar"),
          Path.of("..", "courier-cli", "target", "courier.jar"));

  private CourierJar() {}

  static Path path() {
    String named = System.getProperty("bench.courier.jar");
    List<Path> candidates = named == null || named.isBlank() ? BUILT : List.of(Path.of(named));
    return candidates.stream()
        .filter(Files::isRegularFile)
        .findFirst()
        .map(Path::toAbsolutePath)
        .orElseThrow(
            () ->
                new IllegalStateException(
                    candidates.get(0).toAbsolutePath()
                        + " is missing: mvn -B -q package -DskipTests -pl modules/courier-cli -am"));
  }
}
