package dev.courier.benchmarks;

import java.util.ArrayList;
import java.util.List;

/**
 * The relay's JVM as its Kubernetes manifest and docker-compose start it ({@code
 * deploy/k8s/courier-relay.yaml}): the heap of its 768 MiB limit, and C1 only ({@code
 * JDK_JAVA_OPTIONS=-XX:TieredStopAtLevel=1}). {@code -Dbench.jit.relay=tiered} leaves the second
 * compiler in, for a comparison.
 */
final class RelayJvm {

  private RelayJvm() {}

  static List<String> options() {
    return tiered() ? List.of("-Xmx576m") : List.of("-Xmx576m", "-XX:TieredStopAtLevel=1");
  }

  /**
   * The options of {@code -Dbench.jvm.relay="..."} (a flight recording, an AOT cache, log levels),
   * with {@code {shard}} (the shard, or the replica of the fault run) and {@code {launch}} (a count
   * of the relays started) filled in, so each relay writes its own files.
   */
  static List<String> extra(String shard, String launch) {
    List<String> extra = new ArrayList<>();
    for (String option : System.getProperty("bench.jvm.relay", "").split(" ")) {
      if (!option.isBlank()) {
        extra.add(option.replace("{shard}", shard).replace("{launch}", launch));
      }
    }
    return extra;
  }

  static String describe() {
    return tiered() ? "-Xmx576m, tiered compilation" : "-Xmx576m, C1 only";
  }

  private static boolean tiered() {
    return "tiered".equals(System.getProperty("bench.jit.relay", "c1"));
  }
}
