package dev.courier.cli;

import dev.courier.core.ServiceHealth;
import dev.courier.core.internal.HttpEndpoints;
import dev.courier.core.internal.HttpEndpoints.Response;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.util.function.Supplier;
import org.apache.kafka.common.config.ConfigException;

/**
 * {@code /health} and {@code /health/ready} (200 when the service does its job, 503 with the reason
 * otherwise: readiness and startup probes), {@code /health/live} (503 only when the service has
 * failed for good: the liveness probe), and {@code /metrics} (Prometheus text), with the exact
 * routing rules of {@link HttpEndpoints}.
 */
final class ServiceHttp implements AutoCloseable {

  static final String PROMETHEUS = "text/plain; version=0.0.4; charset=utf-8";

  private final HttpEndpoints endpoints;

  private ServiceHttp(HttpEndpoints endpoints) {
    this.endpoints = endpoints;
  }

  /**
   * @throws ConfigException naming {@code portKey} when the port cannot be bound
   */
  static ServiceHttp start(
      String portKey, int port, PrometheusMeterRegistry registry, Supplier<ServiceHealth> health) {
    return start(portKey, port, routes(registry, health));
  }

  /** The routes every service has, for a service to add its own to. */
  static HttpEndpoints.Builder routes(
      PrometheusMeterRegistry registry, Supplier<ServiceHealth> health) {
    Supplier<Response> ready =
        () -> {
          ServiceHealth h = health.get();
          return Response.json(h.ready() ? 200 : 503, h.readinessJson());
        };
    return HttpEndpoints.builder()
        .get("/health", ready)
        .get("/health/ready", ready)
        .get(
            "/health/live",
            () -> {
              ServiceHealth h = health.get();
              return Response.json(h.live() ? 200 : 503, h.livenessJson());
            })
        .get("/metrics", () -> Response.text(200, PROMETHEUS, registry.scrape()));
  }

  static ServiceHttp start(String portKey, int port, HttpEndpoints.Builder routes) {
    try {
      return new ServiceHttp(routes.start(port));
    } catch (IOException e) {
      throw new ConfigException(portKey, port, "cannot listen: " + e.getMessage());
    }
  }

  int port() {
    return endpoints.port();
  }

  @Override
  public void close() {
    endpoints.close();
  }
}
