package dev.courier.cli;

import dev.courier.core.ClientSettings;
import dev.courier.core.ServiceHealth;
import dev.courier.core.internal.HttpEndpoints;
import dev.courier.outbox.OutboxRelay;
import dev.courier.outbox.OutboxRelayConfig;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Range;
import org.apache.kafka.common.config.ConfigDef.Type;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

@Command(
    name = "relay",
    mixinStandardHelpOptions = true,
    description = {
      "Runs the outbox relay: Debezium's embedded engine tails the outbox table (pgoutput) and"
          + " publishes each event to Kafka, keeping its id on a re-send.",
      "Waits out PostgreSQL and Kafka outages (at start too) and says why on /health; exits 2"
          + " only on a wrong setting.",
      "Several replicas on one slot elect a leader through PostgreSQL: one streams, the others"
          + " wait as standbys and take over when it dies or freezes.",
      "Serves /health (= /health/ready: leads and streams), /health/replica (leads and streams,"
          + " or waits as a healthy standby), /health/live and /metrics on relay.http.port;"
          + " stops cleanly on SIGTERM, handing the slot to a standby.",
      "Settings: OutboxRelayConfig's keys (bootstrap.servers, database.*, outbox.*) and"
          + " relay.http.port, from --config, COURIER_... variables and --set."
    })
final class RelayCommand implements Callable<Integer> {

  static final String HTTP_PORT = "relay.http.port";

  static final ConfigDef DEFINITION =
      new ConfigDef(OutboxRelayConfig.configDef())
          .define(
              HTTP_PORT,
              Type.INT,
              9465,
              Range.between(0, 65535),
              Importance.MEDIUM,
              "Port of /health and /metrics (0 picks a free port).");

  @Mixin SettingsOptions options;

  @Override
  public Integer call() throws Exception {
    Map<String, String> settings =
        options.resolve(DEFINITION, List.of(ClientSettings.PREFIX), System.err);
    AbstractConfig service = new AbstractConfig(DEFINITION, settings, false);
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    new JvmMemoryMetrics().bindTo(registry);
    // /health answers while the relay starts: an orchestrator sees why it is not ready yet.
    AtomicReference<OutboxRelay> started = new AtomicReference<>();
    Instant since = Instant.now();
    Supplier<ServiceHealth> health =
        () ->
            started.get() == null
                ? ServiceHealth.waiting("STARTING", "starting", since)
                : started.get().health();
    ServiceHttp http =
        ServiceHttp.start(
            HTTP_PORT,
            service.getInt(HTTP_PORT),
            ServiceHttp.routes(registry, health)
                .get("/health/replica", () -> replica(health.get())));
    System.out.println("courier relay: serving /health and /metrics on port " + http.port());
    OutboxRelay relay;
    try {
      relay =
          OutboxRelay.create(
              settings, registry, Clock.systemUTC(), ServiceTracing.global().orElse(null));
    } catch (RuntimeException e) {
      http.close();
      throw e;
    }
    started.set(relay);
    announceStreaming(relay);
    return ServiceLifecycle.runUntilStopped(
        "relay",
        () -> {
          http.close();
          relay.close();
        },
        () -> Optional.ofNullable(relay.failure()),
        System.out);
  }

  /**
   * The readiness of a replica among several: 200 for the leader that streams and for a standby
   * that passed its checks and waits for the lock. Orchestrators probe this, not /health/ready: a
   * standby that never counts as ready would block every rolling update and every node drain behind
   * the leader.
   */
  static HttpEndpoints.Response replica(ServiceHealth h) {
    boolean ok = h.ready() || h.status().equals("STANDBY");
    return HttpEndpoints.Response.json(
        ok ? 200 : 503,
        new ServiceHealth(ok, h.live(), h.status(), h.reason(), h.since()).readinessJson());
  }

  /** One line on stdout when the stream first runs: scripts and the lab wait for it. */
  private static void announceStreaming(OutboxRelay relay) {
    Thread announcer =
        new Thread(
            () -> {
              try {
                if (relay.awaitStreaming(Duration.ofDays(365))) {
                  System.out.println(Courier.RELAY_STREAMING);
                }
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              } catch (IllegalStateException failed) {
                // The lifecycle reports the relay's failure and exits.
              }
            },
            "courier-relay-announcer");
    announcer.setDaemon(true);
    announcer.start();
  }
}
