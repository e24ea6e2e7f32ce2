package dev.courier.benchmarks;

import dev.courier.backpressure.MonitorService;
import dev.courier.testkit.JvmWorker;
import dev.courier.testkit.WorkerProcess;
import java.io.IOException;
import java.net.ServerSocket;
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

  static String measure(String bootstrap, List<String> groups, int maxMiB) {
    int port = freePort();
    HttpClient http = HttpClient.newHttpClient();
    try (WorkerProcess service =
        JvmWorker.of(MonitorService.class)
            .name("monitor-service")
            .jvmOption("-Xmx" + maxMiB + "m")
            .args(
                "bootstrap.servers=" + bootstrap,
                "monitor.groups=" + String.join(",", groups),
                "monitor.tick.interval.ms=1000",
                "monitor.window.ms=10000",
                "monitor.http.port=" + port)
            .start()) {
      HeapSampler heap = new HeapSampler(service.pid());
      double ticks = 0;
      long deadline = System.nanoTime() + Duration.ofMinutes(3).toNanos();
      while (ticks < 15 && System.nanoTime() < deadline && service.isAlive()) {
        String metrics = scrape(http, port);
        if (metrics != null) {
          ticks = value(metrics, "courier_monitor_tick_seconds_count");
        }
        // Sampling interval of the benchmark harness, not a wait for a condition in a test.
        LockSupport.parkNanos(Duration.ofMillis(250).toNanos());
      }
      heap.close();
      return String.format(
          Locale.ROOT,
          "monitor service at %d groups: peak heap used %d MiB over %.0f ticks in a JVM capped"
              + " at -Xmx%dm (target <= 256 MiB)%s",
          groups.size(),
          heap.peakMiB(),
          ticks,
          maxMiB,
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
              HttpRequest.newBuilder(URI.create("http://localhost:" + port + "/metrics"))
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

  private static double value(String metrics, String name) {
    for (String line : metrics.split("\n")) {
      if (line.startsWith(name + " ") || line.startsWith(name + "{")) {
        return Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
      }
    }
    return 0;
  }

  private static int freePort() {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }
}
