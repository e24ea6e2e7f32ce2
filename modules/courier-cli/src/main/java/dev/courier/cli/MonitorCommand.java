package dev.courier.cli;

import dev.courier.backpressure.MonitorConfig;
import dev.courier.backpressure.MonitorService;
import dev.courier.core.ClientSettings;
import dev.courier.core.ServiceHealth;
import dev.courier.core.internal.BootstrapNames;
import dev.courier.core.internal.KafkaReachability;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicReference;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

@Command(
    name = "monitor",
    mixinStandardHelpOptions = true,
    description = {
      "Runs the backpressure monitor: lag, age of the oldest unconsumed record, rates and status"
          + " per group and partition.",
      "Serves /metrics, /health, /v1/groups and /v1/groups/{group} on monitor.http.port; stops"
          + " cleanly on SIGTERM.",
      "Settings: MonitorConfig's keys (bootstrap.servers, monitor.*), from --config, COURIER_..."
          + " variables and --set."
    })
final class MonitorCommand implements Callable<Integer> {

  @Mixin SettingsOptions options;

  @Override
  public Integer call() throws Exception {
    MonitorConfig config =
        new MonitorConfig(
            options.resolve(MonitorConfig.configDef(), List.of(ClientSettings.PREFIX), System.err));
    int port = config.httpPort();
    Optional<String> unresolved = BootstrapNames.unresolved(config.clients());
    if (unresolved.isPresent()) {
      port = awaitNames(config, unresolved.get());
    }
    // Refused credentials are a wrong setting (exit 2); Kafka away is an outage the ticks report.
    KafkaReachability.check(config.clients(), Duration.ofSeconds(10));
    Map<String, Object> settings = new HashMap<>(config.originals());
    settings.put(MonitorConfig.HTTP_PORT, port);
    MonitorService service = MonitorService.create(settings, Clock.systemUTC());
    System.out.println(
        "courier monitor: serving /health, /metrics and /v1/groups on port " + service.port());
    return ServiceLifecycle.runUntilStopped("monitor", service, Optional::empty, System.out);
  }

  /**
   * Kafka's clients refuse to be built while no name in {@code bootstrap.servers} resolves, and the
   * monitor's are built with it: until one does, this serves /health (503, WAITING, the reason) on
   * the monitor's port, and returns the port it served on, for the monitor to take over.
   */
  private static int awaitNames(MonitorConfig config, String reason) {
    AtomicReference<ServiceHealth> health =
        new AtomicReference<>(ServiceHealth.waiting("WAITING", reason, Instant.now()));
    try (ServiceHttp http =
        ServiceHttp.start(
            MonitorConfig.HTTP_PORT,
            config.httpPort(),
            new PrometheusMeterRegistry(PrometheusConfig.DEFAULT),
            health::get)) {
      System.out.println(
          "courier monitor: waiting for Kafka; serving /health on port " + http.port());
      AwaitKafka.awaitNames(config.clients(), health);
      return http.port();
    }
  }
}
