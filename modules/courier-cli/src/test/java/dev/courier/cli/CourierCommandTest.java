package dev.courier.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

class CourierCommandTest {

  @Test
  void everyCommandHasHelp() {
    List<String> paths = new ArrayList<>();
    collect(new CommandLine(new Courier()), "", paths);
    assertThat(paths)
        .contains(
            "relay",
            "monitor",
            "retry-worker",
            "groups describe",
            "groups reset",
            "groups undo",
            "dlt list",
            "dlt show",
            "dlt replay",
            "dlt park",
            "contract",
            "aot-training");
    for (String path : paths) {
      List<String> args = new ArrayList<>(List.of(path.split(" ")));
      args.add("--help");
      Run run = run(args.toArray(String[]::new));
      assertThat(run.status).as(path).isZero();
      assertThat(run.out).as(path).startsWith("Usage: courier " + path);
    }
  }

  @Test
  void aBadValueFailsAtStartNamingTheKey() {
    Run run =
        run(
            "monitor",
            "--set",
            "bootstrap.servers=localhost:1",
            "--set",
            "monitor.tick.interval.ms=soon");
    assertThat(run.status).isEqualTo(Courier.CONFIG_ERROR);
    assertThat(run.err)
        .contains("courier monitor: configuration error")
        .contains("monitor.tick.interval.ms");
  }

  @Test
  void aMissingRequiredKeyIsNamed() {
    Run run = run("contract", "--set", "group.id=billing");
    assertThat(run.status).isEqualTo(Courier.CONFIG_ERROR);
    assertThat(run.err).contains("bootstrap.servers");
  }

  @Test
  void aRetryWorkerWithoutATargetOrHandlerIsRefused() {
    Run run =
        run(
            "retry-worker",
            "--set",
            "bootstrap.servers=localhost:1",
            "--set",
            "group.id=g",
            "--set",
            "retry.topic=t");
    assertThat(run.status).isEqualTo(Courier.CONFIG_ERROR);
    assertThat(run.err).contains("retry.worker.target.url");
  }

  @Test
  void aGroupThatCannotNameItsLaddersTopicsIsRefusedNamingTheKey() {
    Run run =
        run(
            "contract",
            "--set",
            "bootstrap.servers=localhost:1",
            "--set",
            "retry.group.id=billing team",
            "--set",
            "retry.topic=payments");
    assertThat(run.status).isEqualTo(Courier.CONFIG_ERROR);
    assertThat(run.err)
        .contains("retry.group.id")
        .contains("billing team")
        .contains("as a Kafka topic name does");
  }

  @Test
  void theContractIsPrintedFromSettingsAlone() {
    Run run =
        run(
            "contract",
            "--set",
            "bootstrap.servers=localhost:1",
            "--set",
            "group.id=billing",
            "--set",
            "retry.topic=payments",
            "--set",
            "retry.max.attempts=4");
    assertThat(run.status).as(run.err).isZero();
    assertThat(run.out)
        .contains("Retry contract of group billing on payments")
        .contains("at most 4 calls")
        .contains("payments.billing.dlt")
        // The same classification the retry worker runs with.
        .contains("Unavailable -> TRANSIENT");
  }

  private static void collect(CommandLine line, String prefix, List<String> paths) {
    line.getSubcommands()
        .forEach(
            (name, sub) -> {
              if (name.equals("help")) {
                return;
              }
              String path = prefix.isEmpty() ? name : prefix + " " + name;
              if (sub.getSubcommands().isEmpty()) {
                paths.add(path);
              } else {
                collect(sub, path, paths);
              }
            });
  }

  record Run(int status, String out, String err) {}

  static Run run(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    java.io.PrintStream realOut = System.out;
    java.io.ByteArrayOutputStream captured = new java.io.ByteArrayOutputStream();
    System.setOut(new java.io.PrintStream(captured, true, java.nio.charset.StandardCharsets.UTF_8));
    int status;
    try {
      CommandLine line = Courier.commandLine();
      line.setOut(new PrintWriter(out));
      line.setErr(new PrintWriter(err));
      status = line.execute(args);
    } finally {
      System.setOut(realOut);
    }
    return new Run(
        status, out + captured.toString(java.nio.charset.StandardCharsets.UTF_8), err.toString());
  }
}
