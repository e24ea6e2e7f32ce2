package dev.courier.benchmarks;

import dev.courier.cli.Courier;
import dev.courier.testkit.FreePorts;
import dev.courier.testkit.JvmWorker;
import dev.courier.testkit.WorkerProcess;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.locks.LockSupport;

/**
 * The monitor service's heap under load: the service runs in its own JVM capped at {@code maxMiB}
 * and watches the benchmark's groups; its ticks are counted on {@code /metrics} and its heap is
 * sampled with jcmd.
 */
final class MonitorHeap {

  private MonitorHeap() {}

  static String measure(String bootstrap, List<String> groups, int partitions, int maxMiB) {
    int port = FreePorts.next();
    HttpClient http = HttpClient.newHttpClient();
    try (WorkerProcess service =
        JvmWorker.of(Courier.class)
            .name("monitor-service")
            .jvmOption("-Xmx" + maxMiB + "m")
            .args(
                "monitor",
                "--set",
                "bootstrap.servers=" + bootstrap,
                "--set",
                "monitor.groups=" + String.join(",", groups),
                "--set",
                "monitor.tick.interval.ms=1000",
                "--set",
                "monitor.window.ms=10000",
                "--set",
                // Counted ticks must not depend on how long each takes: never stale here.
                "monitor.stale.after.ms=600000",
                "--set",
                "monitor.http.port=" + port)
            .start()) {
      HeapSampler heap = new HeapSampler(service.pid());
      // Ticks are counted on /health (its "since" is the time of the last tick): a scrape of
      // /metrics at a million pairs is itself hundreds of MB of text.
      java.util.Set<String> ticksSeen = new java.util.HashSet<>();
      long firstTickAt = 0;
      long lastTickAt = 0;
      long deadline = System.nanoTime() + Duration.ofMinutes(5).toNanos();
      while (ticksSeen.size() < 16 && System.nanoTime() < deadline && service.isAlive()) {
        String health = scrape(http, port);
        if (health != null && health.contains("\"UP\"") && ticksSeen.add(since(health))) {
          lastTickAt = System.nanoTime();
          firstTickAt = firstTickAt == 0 ? lastTickAt : firstTickAt;
        }
        // Sampling interval of the benchmark harness, not a wait for a condition in a test.
        LockSupport.parkNanos(Duration.ofMillis(250).toNanos());
      }
      heap.close();
      int ticks = ticksSeen.size();
      return String.format(
          Locale.ROOT,
          "monitor service at %d partitions x %d groups: peak heap used %d MiB over %d ticks in a JVM capped"
              + " at -Xmx%dm (%.1f s a tick there, tick interval 1 s)%s",
          partitions,
          groups.size(),
          heap.peakMiB(),
          ticks,
          maxMiB,
          ticks > 1 ? (lastTickAt - firstTickAt) / 1e9 / (ticks - 1) : Double.NaN,
          service.isAlive() ? "" : "; the service DIED: " + tail(service.output()));
    }
  }

  private static String tail(String output) {
    return output.length() > 400 ? output.substring(output.length() - 400) : output;
  }

  private static String scrape(HttpClient http, int port) {
    try {
      HttpResponse<String> r =
          http.send(
              HttpRequest.newBuilder(URI.create("http://localhost:" + port + "/health"))
                  .timeout(Duration.ofSeconds(10))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      return r.statusCode() == 200 ? r.body() : null;
    } catch (IOException e) {
      return null; // not listening yet
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return null;
    }
  }

  private static String since(String health) {
    int at = health.indexOf("\"since\":\"");
    return at < 0 ? health : health.substring(at, health.indexOf('"', at + 9 + 1));
  }
}
