package dev.courier.cli;

import dev.courier.core.ClientSettings;
import dev.courier.outbox.OutboxSkips;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

@Command(
    name = "outbox",
    mixinStandardHelpOptions = true,
    description =
        "The outbox relay's operator commands, with the relay's own settings (--config"
            + " relay.properties).",
    subcommands = {OutboxCommand.Skip.class, OutboxCommand.Skips.class})
final class OutboxCommand {

  /** The relay's settings, as {@code courier relay} reads them, without its HTTP port. */
  static Map<String, String> relaySettings(SettingsOptions options) {
    Map<String, String> settings =
        options.resolve(RelayCommand.DEFINITION, List.of(ClientSettings.PREFIX), System.err);
    settings.remove(RelayCommand.HTTP_PORT);
    return settings;
  }

  @Command(
      name = "skip",
      mixinStandardHelpOptions = true,
      description = {
        "Dead-letters one event instead of publishing it: the way past a row Kafka refuses for good"
            + " under outbox.invalid.row.policy=fail, where the relay stops and publishes nothing"
            + " after the row (deleting the row does not help: the slot decodes it again).",
        "Records who and why in courier_outbox_skips; the relay's next start sends the row to"
            + " <prefix>.outbox.dlt with that reason and goes on in order. Dry run unless"
            + " --execute."
      })
  static final class Skip implements Callable<Integer> {
    @Mixin SettingsOptions options;
    @Mixin ChangeOptions change;

    @Parameters(paramLabel = "EVENT_ID", description = "The event id the relay's error names.")
    UUID eventId;

    @Option(names = "--execute", description = "Record the skip (otherwise a dry run).")
    boolean execute;

    @Override
    public Integer call() {
      Map<String, String> settings = relaySettings(options);
      if (!execute) {
        System.out.println(
            "Would skip event " + eventId + ": the relay's next start dead-letters it.");
        System.out.println("Nothing recorded: add --execute --reason WHY to skip it.");
        return 0;
      }
      if (change.reason.isBlank()) {
        throw new IllegalArgumentException("--reason WHY is required with --execute");
      }
      OutboxSkips.Skip skip = OutboxSkips.skip(settings, eventId, change.actor, change.reason);
      System.out.println("Skipped event " + skip.eventId() + " (" + skip.describe() + ").");
      System.out.println("Start the relay again: it dead-letters the row and goes on.");
      return 0;
    }
  }

  @Command(
      name = "skips",
      mixinStandardHelpOptions = true,
      description = "Lists the events skipped so far, with who skipped them, when and why.")
  static final class Skips implements Callable<Integer> {
    @Mixin SettingsOptions options;

    @Override
    public Integer call() {
      Collection<OutboxSkips.Skip> skips = OutboxSkips.list(relaySettings(options));
      skips.forEach(s -> System.out.println(s.eventId() + "  " + s.describe()));
      System.out.println(skips.size() + " skipped event(s)");
      return 0;
    }
  }
}
