package dev.courier.cli;

import dev.courier.core.ClientSettings;
import dev.courier.retry.RetryConfig;
import dev.courier.retry.RetryContract;
import java.time.Clock;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

@Command(
    name = "contract",
    mixinStandardHelpOptions = true,
    description = {
      "Prints the retry contract a consumer with these settings keeps: operation key, ordering,"
          + " classification, attempts, delays, deadline, budget, DLT and who may replay it.",
      "Takes the same settings as retry-worker (RetryConfig's keys) and shows its"
          + " classification; connects to nothing."
    })
final class ContractCommand implements Callable<Integer> {

  @Mixin SettingsOptions options;

  @Override
  public Integer call() {
    RetryConfig config =
        new RetryConfig(
            options.resolve(
                RetryWorkerCommand.DEFINITION,
                List.of(ClientSettings.PREFIX),
                RetryConfig.renamedKeys(),
                System.err));
    System.out.println(
        RetryContract.of(
                config, RetryWorkerCommand.classifier(config), config.budget(Clock.systemUTC()))
            .render());
    return 0;
  }
}
