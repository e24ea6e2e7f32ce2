package dev.courier.benchmarks;

import java.util.List;

/**
 * The relay's JVM as its Kubernetes manifest and docker-compose start it ({@code
 * deploy/k8s/courier-relay.yaml}): the heap of its 768 MiB limit, and C1 only ({@code
 * JDK_JAVA_OPTIONS=-XX:TieredStopAtLevel=1}). {@code -Dbench.relay.jit=tiered} leaves the second
 * compiler in, for a comparison.
 */
final class RelayJvm {

  private RelayJvm() {}

  static List<String> options() {
    return tiered() ? List.of("-Xmx576m") : List.of("-Xmx576m", "-XX:TieredStopAtLevel=1");
  }

  static String describe() {
    return tiered() ? "-Xmx576m, tiered compilation" : "-Xmx576m, C1 only";
  }

  private static boolean tiered() {
    return "tiered".equals(System.getProperty("bench.relay.jit", "c1"));
  }
}
