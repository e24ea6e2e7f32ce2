package dev.courier.cli;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Executors;
import java.util.function.BooleanSupplier;
import org.apache.kafka.common.config.ConfigException;

/**
 * {@code /health} (200 UP or 503 DOWN, for liveness and readiness probes) and {@code /metrics}
 * (Prometheus text) of a service that has no HTTP server of its own.
 */
final class ServiceHttp implements AutoCloseable {

  private final HttpServer server;

  private ServiceHttp(HttpServer server) {
    this.server = server;
  }

  /**
   * @throws ConfigException naming {@code portKey} when the port cannot be bound
   */
  static ServiceHttp start(
      String portKey, int port, PrometheusMeterRegistry registry, BooleanSupplier healthy) {
    HttpServer server;
    try {
      server = HttpServer.create(new InetSocketAddress(port), 0);
    } catch (IOException e) {
      throw new ConfigException(portKey, port, "cannot listen: " + e.getMessage());
    }
    server.setExecutor(Executors.newSingleThreadExecutor(r -> daemon(r, "courier-http")));
    server.createContext(
        "/health",
        ex -> {
          boolean up = healthy.getAsBoolean();
          respond(
              ex,
              up ? 200 : 503,
              "application/json",
              "{\"status\":\"" + (up ? "UP" : "DOWN") + "\"}");
        });
    server.createContext(
        "/metrics",
        ex -> respond(ex, 200, "text/plain; version=0.0.4; charset=utf-8", registry.scrape()));
    server.start();
    return new ServiceHttp(server);
  }

  int port() {
    return server.getAddress().getPort();
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

  private static Thread daemon(Runnable r, String name) {
    Thread t = new Thread(r, name);
    t.setDaemon(true);
    return t;
  }

  @Override
  public void close() {
    server.stop(0);
  }
}
