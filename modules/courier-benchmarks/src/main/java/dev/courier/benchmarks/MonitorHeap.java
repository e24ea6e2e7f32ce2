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
 * and watches the benchmark's groups; its {@code /metrics} (JVM memory meters) is sampled while it
 * ticks, and the peak of the heap pools' used bytes is the figure.
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
      double peak = 0;
      double ticks = 0;
      long deadline = System.nanoTime() + Duration.ofMinutes(3).toNanos();
      while (ticks < 15 && System.nanoTime() < deadline && service.isAlive()) {
        String metrics = scrape(http, port);
        if (metrics != null) {
          peak = Math.max(peak, heapUsed(metrics));
          ticks = value(metrics, "courier_monitor_tick_seconds_count");
        }
        // Sampling interval of the benchmark harness, not a wait for a condition in a test.
        LockSupport.parkNanos(Duration.ofMillis(250).toNanos());
      }
      return String.format(
          Locale.ROOT,
          "monitor service at %d groups: peak heap used %.0f MiB over %.0f ticks in a JVM capped"
              + " at -Xmx%dm (target <= 256 MiB)%s",
          groups.size(),
          peak / (1024 * 1024),
          ticks,
          maxMiB,
          service.isAlive() ? "" : "; the service DIED: " + service.output());
    }
  }

  private static String scrape(HttpClient http, int port) {
    try {
      HttpResponse<String> r =
          http.send(
              HttpRequest.newBuilder(URI.create("http://localhost:" + port + "/metrics")).build(),
              HttpResponse.BodyHandlers.ofString());
      return r.statusCode() == 200 ? r.body() : null;
    } catch (IOException e) {
      return null; // not listening yet
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return null;
    }
  }

  private static double heapUsed(String metrics) {
    double sum = 0;
    for (String line : metrics.split("\n")) {
      if (line.startsWith("jvm_memory_used_bytes{") && line.contains("area=\"heap\"")) {
        sum += Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
      }
    }
    return sum;
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
