package dev.courier.lab;

import dev.courier.cli.Courier;
import picocli.CommandLine;

/**
 * The {@code courier} command with {@code lab} added: the lab's artifact ({@code courier-lab.jar})
 * carries the embedded broker, PostgreSQL and registry, so the service artifact does not.
 */
public final class CourierLab {

  private CourierLab() {}

  public static void main(String[] args) {
    // Before the first logger exists: the lab prints its own story, services log at info.
    boolean lab = args.length > 0 && args[0].equals("lab");
    System.setProperty(
        "courier.log.level", System.getProperty("courier.log.level", lab ? "warn" : "info"));
    Courier.exit(() -> commandLine().execute(args));
  }

  /** Every command of {@link Courier#commandLine()} and {@code lab}. */
  public static CommandLine commandLine() {
    CommandLine line = Courier.commandLine();
    CommandLine lab = new CommandLine(new LabCommand());
    lab.getCommandSpec()
        .usageMessage()
        .description(LabCommand.describe(lab.getCommandSpec().usageMessage().description()));
    line.addSubcommand("lab", lab);
    return line;
  }
}
