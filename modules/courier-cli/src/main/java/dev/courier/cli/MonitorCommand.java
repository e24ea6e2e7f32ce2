package dev.courier.cli;

import dev.courier.backpressure.MonitorConfig;
import dev.courier.backpressure.MonitorService;
import dev.courier.core.ClientSettings;
import dev.courier.core.internal.BootstrapNames;
import dev.courier.core.internal.KafkaReachability;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
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
    // Until a bootstrap name resolves, the service answers /health with WAITING and the reason.
    MonitorService service = MonitorService.create(config.originals(), Clock.systemUTC());
    try {
      if (BootstrapNames.unresolved(config.clients()).isPresent()) {
        System.out.println(
            "courier monitor: waiting for Kafka; serving /health on port " + service.port());
        AwaitKafka.awaitNames(config.clients());
      }
      // Refused credentials are a wrong setting (exit 2); Kafka away is an outage the ticks report.
      KafkaReachability.check(config.clients(), Duration.ofSeconds(10));
    } catch (RuntimeException e) {
      service.close();
      throw e;
    }
    System.out.println(
        "courier monitor: serving /health, /metrics and /v1/groups on port " + service.port());
    return ServiceLifecycle.runUntilStopped("monitor", service, Optional::empty, System.out);
  }
}
