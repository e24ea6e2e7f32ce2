package dev.courier.backpressure;

import dev.courier.backpressure.internal.LagJson;
import dev.courier.core.ServiceHealth;
import dev.courier.core.internal.HttpEndpoints;
import dev.courier.core.internal.HttpEndpoints.Response;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.common.config.ConfigException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The monitor as a service: a ticking {@link LagMonitor} and an HTTP side with exact routes, GET
 * and HEAD only: {@code /metrics} (Prometheus text, streamed), {@code /v1/groups} and {@code
 * /v1/groups/{group}} (per-partition detail, each with its age and whether it is stale), {@code
 * /health} = {@code /health/ready} (503 with the reason once the figures are stale) and {@code
 * /health/live}. JVM memory and thread meters are on {@code /metrics} too.
 *
 * <p>Started before a name in {@code bootstrap.servers} resolves (a broker's pod or container not
 * up yet), it serves at once and answers /health with 503 {@code WAITING} and the reason until one
 * does, then watches: Kafka's clients cannot be built before that.
 *
 * <p>Replicas are independent: each reads the cluster itself, so two replicas serve the same
 * figures (rates and statuses may differ by a tick) and either can answer a probe or a scrape.
 */
public final class MonitorService implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(MonitorService.class);
  private static final String PROMETHEUS = "text/plain; version=0.0.4; charset=utf-8";

  private final LagMonitor monitor;
  private final PrometheusMeterRegistry registry;
  private final Clock clock;
  private final String method;
  private HttpEndpoints http;

  private MonitorService(MonitorConfig config, Clock clock) {
    this.clock = clock;
    this.registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    new JvmMemoryMetrics().bindTo(registry);
    new JvmThreadMetrics().bindTo(registry);
    Map<String, Object> settings = new HashMap<>(config.originals());
    settings.put(MonitorConfig.PARTITION_METERS, false);
    MonitorConfig serviceConfig = new MonitorConfig(settings);
    this.monitor = new DefaultLagMonitor(serviceConfig, registry, clock);
    this.method = serviceConfig.ageMode().value();
  }

  /**
   * Returns the monitor running with these {@link MonitorConfig} settings: ticking and serving
   * until {@link #close()}.
   *
   * @throws ConfigException naming the setting: a bad value, or {@code monitor.http.port} when the
   *     port cannot be bound
   */
  public static MonitorService create(Map<String, ?> settings, Clock clock) {
    MonitorConfig config = new MonitorConfig(settings);
    MonitorService service = new MonitorService(config, clock);
    try {
      service.http = service.routes().start(config.httpPort());
    } catch (IOException e) {
      service.monitor.close();
      throw new ConfigException(MonitorConfig.HTTP_PORT, config.httpPort(), "cannot listen: " + e);
    }
    service.monitor.start();
    LOG.info("courier monitor serving on port {}", service.port());
    return service;
  }

  private HttpEndpoints.Builder routes() {
    return HttpEndpoints.builder()
        .get("/health", this::ready)
        .get("/health/ready", this::ready)
        .get("/health/live", () -> Response.json(200, monitor.health().livenessJson()))
        .get("/metrics", () -> Response.streamed(200, PROMETHEUS, this::scrape))
        .get("/v1/groups", this::groups)
        .getWithParameter("/v1/groups/", this::group);
  }

  public int port() {
    return http.port();
  }

  public LagMonitor monitor() {
    return monitor;
  }

  private Response ready() {
    ServiceHealth health = monitor.health();
    return Response.json(health.ready() ? 200 : 503, health.readinessJson());
  }

  /** The registry's meters, then the per-partition rows of the last tick, row by row. */
  private void scrape(java.io.Writer out) throws IOException {
    out.write(registry.scrape());
    PartitionExposition.write(monitor.latest(), method, out);
  }

  private Response groups() {
    LagSnapshot snapshot = monitor.latest();
    Instant now = clock.instant();
    List<Map<String, Object>> groups = new ArrayList<>();
    snapshot.groups().keySet().stream()
        .sorted()
        .forEach(
            g ->
                groups.add(
                    LagJson.group(snapshot.groups().get(g), false, now, monitor.staleAfter())));
    ServiceHealth health = monitor.health();
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("observedAt", snapshot.at().toString());
    body.put("ageSeconds", java.time.Duration.between(snapshot.at(), now).toMillis() / 1000.0);
    body.put("stale", !health.ready());
    if (!health.ready()) {
      body.put("staleReason", health.reason());
    }
    body.put("tickSeconds", snapshot.tickDuration().toMillis() / 1000.0);
    body.put("groups", groups);
    return Response.json(200, json(body));
  }

  private Response group(String group) {
    LagSnapshot snapshot = monitor.latest();
    Optional<GroupLag> lag = snapshot.group(group);
    if (lag.isEmpty()) {
      return Response.json(404, HttpEndpoints.error("group not watched or not seen yet: " + group));
    }
    return Response.json(
        200, json(LagJson.group(lag.get(), true, clock.instant(), monitor.staleAfter())));
  }

  private static String json(Object body) {
    try {
      return LagJson.MAPPER.writeValueAsString(body);
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Override
  public void close() {
    if (http != null) {
      http.close();
    }
    monitor.close();
    registry.close();
  }
}
