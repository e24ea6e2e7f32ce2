package dev.courier.cli;

import java.io.PrintWriter;
import java.util.function.IntSupplier;
import org.apache.kafka.common.config.ConfigException;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/** The {@code courier} command. */
@Command(
    name = "courier",
    mixinStandardHelpOptions = true,
    version = "courier 0.1.0-SNAPSHOT (Kafka 4.3.1, Debezium 3.6.1.Final)",
    description = "Reliable asynchronous work on Apache Kafka: services and operator tools.",
    subcommands = {
      RelayCommand.class,
      MonitorCommand.class,
      RetryWorkerCommand.class,
      GroupsCommand.class,
      DltCommand.class,
      OutboxCommand.class,
      ContractCommand.class,
      AotTrainingCommand.class,
      CommandLine.HelpCommand.class
    })
public final class Courier implements Runnable {

  /** Exit status of a configuration the command refuses (the message names the key). */
  public static final int CONFIG_ERROR = 2;

  /** The line {@code courier relay} prints once it streams changes: scripts can wait for it. */
  public static final String RELAY_STREAMING = "courier relay: streaming";

  @Spec CommandSpec spec;

  @Override
  public void run() {
    throw new CommandLine.ParameterException(spec.commandLine(), "Missing a command");
  }

  public static void main(String[] args) {
    try {
      LogLevels.apply();
    } catch (IllegalArgumentException e) {
      System.err.println("courier: configuration error: " + e.getMessage());
      System.exit(CONFIG_ERROR);
    }
    exit(() -> execute(args));
  }

  /**
   * Exits with the command's status. An {@link Error} that escapes it (a missing class, the heap
   * gone) exits 1 with its stack trace: picocli hands on only exceptions, and the non-daemon
   * threads of a service or the lab's embedded stack would otherwise keep a dead command's JVM up.
   */
  public static void exit(IntSupplier command) {
    int status;
    try {
      status = command.getAsInt();
    } catch (Throwable t) {
      t.printStackTrace();
      status = 1;
    }
    System.exit(status);
  }

  /** Runs a command line in this JVM and returns its exit status. */
  public static int execute(String... args) {
    return commandLine().execute(args);
  }

  /** The command line with Courier's error handling: a bad setting exits 2 naming the key. */
  public static CommandLine commandLine() {
    CommandLine line = new CommandLine(new Courier());
    line.setExecutionExceptionHandler(
        (e, cl, parsed) -> {
          PrintWriter err = cl.getErr();
          String command = cl.getCommandSpec().qualifiedName();
          if (e instanceof ConfigException) {
            err.println(command + ": configuration error: " + e.getMessage());
            return CONFIG_ERROR;
          }
          err.println(command + ": " + e.getMessage());
          if (Boolean.getBoolean("courier.stacktrace")) {
            e.printStackTrace(err);
          }
          return 1;
        });
    return line;
  }
}
