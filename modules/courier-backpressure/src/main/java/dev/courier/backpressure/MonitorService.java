package dev.courier.backpressure;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.courier.backpressure.internal.LagJson;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.OutputStream;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The monitor as a service: a ticking {@link LagMonitor} and an HTTP server with {@code /metrics}
 * (Prometheus text), {@code /v1/groups}, {@code /v1/groups/{group}} (per-partition detail) and
 * {@code /health} (200 while ticks succeed, 503 otherwise). JVM memory and thread meters are on
 * {@code /metrics} too.
 */
public final class MonitorService implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(MonitorService.class);

  private final LagMonitor monitor;
  private final PrometheusMeterRegistry registry;
  private final HttpServer server;

  private MonitorService(MonitorConfig config, Clock clock) throws IOException {
    this.registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    new JvmMemoryMetrics().bindTo(registry);
    new JvmThreadMetrics().bindTo(registry);
    Map<String, Object> settings = new HashMap<>(config.originals());
    settings.put(MonitorConfig.PARTITION_METERS, false);
    MonitorConfig serviceConfig = new MonitorConfig(settings);
    this.monitor = LagMonitor.create(serviceConfig, registry, clock);
    String method = serviceConfig.estimateAge() ? "estimate" : "exact";
    this.server = HttpServer.create(new InetSocketAddress(config.httpPort()), 0);
    server.setExecutor(Executors.newFixedThreadPool(2));
    server.createContext("/metrics", ex -> metrics(ex, method));
    server.createContext(
        "/health",
        ex ->
            respond(
                ex,
                monitor.healthy() ? 200 : 503,
                "application/json",
                "{\"status\":\"" + (monitor.healthy() ? "UP" : "DOWN") + "\"}"));
    server.createContext("/v1/groups", this::groups);
  }

  /** Starts ticking and serving; fails with the offending key when the configuration is bad. */
  public static MonitorService start(MonitorConfig config, Clock clock) {
    try {
      MonitorService service = new MonitorService(config, clock);
      service.server.start();
      service.monitor.start();
      LOG.info("courier monitor serving on port {}", service.port());
      return service;
    } catch (IOException e) {
      throw new IllegalStateException(
          "cannot listen on " + MonitorConfig.HTTP_PORT + "=" + config.httpPort() + ": " + e, e);
    }
  }

  public int port() {
    return server.getAddress().getPort();
  }

  public LagMonitor monitor() {
    return monitor;
  }

  /** Streams the scrape: the registry's meters, then the per-partition rows of the last tick. */
  private void metrics(HttpExchange ex, String method) throws IOException {
    ex.getResponseHeaders().set("Content-Type", "text/plain; version=0.0.4; charset=utf-8");
    ex.sendResponseHeaders(200, 0);
    try (Writer out =
        new BufferedWriter(
            new OutputStreamWriter(ex.getResponseBody(), StandardCharsets.UTF_8), 64 * 1024)) {
      out.write(registry.scrape());
      PartitionExposition.write(monitor.latest(), method, out);
    }
  }

  private void groups(HttpExchange ex) throws IOException {
    String path = ex.getRequestURI().getRawPath();
    LagSnapshot snapshot = monitor.latest();
    String rest = path.substring("/v1/groups".length());
    if (rest.isEmpty() || rest.equals("/")) {
      List<Map<String, Object>> groups = new ArrayList<>();
      snapshot.groups().keySet().stream()
          .sorted()
          .forEach(g -> groups.add(LagJson.group(snapshot.groups().get(g), false, snapshot.at())));
      Map<String, Object> body = new HashMap<>();
      body.put("observedAt", snapshot.at().toString());
      body.put("tickSeconds", snapshot.tickDuration().toMillis() / 1000.0);
      body.put("groups", groups);
      respond(ex, 200, "application/json", LagJson.MAPPER.writeValueAsString(body));
      return;
    }
    String group = URLDecoder.decode(rest.substring(1), StandardCharsets.UTF_8);
    Optional<GroupLag> lag = snapshot.group(group);
    if (lag.isEmpty()) {
      respond(ex, 404, "application/json", "{\"error\":\"group not watched or not seen yet\"}");
      return;
    }
    respond(
        ex,
        200,
        "application/json",
        LagJson.MAPPER.writeValueAsString(LagJson.group(lag.get(), true, snapshot.at())));
  }

  private static void respond(HttpExchange ex, int status, String type, String body)
      throws IOException {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    ex.getResponseHeaders().set("Content-Type", type);
    ex.sendResponseHeaders(status, bytes.length);
    try (OutputStream out = ex.getResponseBody()) {
      out.write(bytes);
    }
  }

  @Override
  public void close() {
    server.stop(0);
    monitor.close();
    registry.close();
  }

  /** Runs the service: arguments are {@code key=value} settings of {@link MonitorConfig}. */
  public static void main(String[] args) throws InterruptedException {
    Map<String, String> settings = new HashMap<>();
    for (String arg : args) {
      int eq = arg.indexOf('=');
      if (eq < 1) {
        throw new IllegalArgumentException("expected key=value, got '" + arg + "'");
      }
      settings.put(arg.substring(0, eq), arg.substring(eq + 1));
    }
    MonitorService service = start(new MonitorConfig(settings), Clock.systemUTC());
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  service.close();
                  stopped.countDown();
                }));
    stopped.await();
  }
}
