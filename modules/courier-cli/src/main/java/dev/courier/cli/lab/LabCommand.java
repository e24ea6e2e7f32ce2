package dev.courier.cli.lab;

import dev.courier.testkit.CourierInfra;
import dev.courier.testkit.InfraSettings;
import dev.courier.testkit.TestDatabase;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

@Command(
    name = "lab",
    mixinStandardHelpOptions = true,
    description = {
      "Runs Courier's five scenarios end to end on an embedded Kafka broker, PostgreSQL and schema"
          + " registry, with real child processes where a crash is part of the story. Each step"
          + " prints what it observed and checks it; the exit status is 1 if any observation is"
          + " wrong.",
      "  1 outbox relay crash and re-send   2 crash between effect and offset commit",
      "  3 independent groups and replay    4 retry ladder, DLT and audited replay",
      "  5 overload, lag, age and admission"
    })
public final class LabCommand implements Callable<Integer> {

  static final List<LabStep> STEPS =
      List.of(
          new OutboxStep(), new CrashStep(), new ReplayStep(), new RetryStep(), new OverloadStep());

  @Option(
      names = "--step",
      paramLabel = "N",
      description = "Run only these steps (1-5; repeatable or comma-separated).",
      split = ",")
  List<Integer> steps = new ArrayList<>();

  @Option(
      names = "--keep-running",
      description =
          "Leave the stack up after the steps and print its addresses (for kcat, psql and the"
              + " other courier commands); Ctrl-C stops it.")
  boolean keepRunning;

  @Option(
      names = "--infra",
      paramLabel = "BACKEND",
      description =
          "embedded (default), testcontainers or external (courier.external.* system properties).")
  InfraSettings.Choice infra;

  @Override
  public Integer call() throws Exception {
    PrintStream out = System.out;
    for (int n : steps) {
      if (n < 1 || n > STEPS.size()) {
        throw new IllegalArgumentException("--step " + n + ": steps are 1 to " + STEPS.size());
      }
    }
    InfraSettings settings = InfraSettings.fromEnvironment();
    settings =
        settings.withInfra(
            infra != null
                ? infra
                : settings.infra() == InfraSettings.Choice.AUTO
                    ? InfraSettings.Choice.EMBEDDED
                    : settings.infra());
    out.println(
        "courier lab: starting Kafka, PostgreSQL and the schema registry ("
            + settings.infra().name().toLowerCase(Locale.ROOT)
            + ")");
    long started = System.nanoTime();
    CourierInfra stack;
    // Kafka's storage formatter prints to standard output; the lab's story is told there.
    System.setOut(System.err);
    try {
      stack = CourierInfra.start(settings);
    } finally {
      System.setOut(out);
    }
    TestDatabase db = stack.postgres().createDatabase("lab");
    out.println("  " + stack.describe());
    out.println("  schema registry: " + stack.schemaRegistry().url());
    out.println("  up in " + seconds(started));
    Lab lab = new Lab(stack, db, out, System.console() != null);
    int failedSteps = 0;
    int ran = 0;
    for (int i = 0; i < STEPS.size(); i++) {
      if (!steps.isEmpty() && !steps.contains(i + 1)) {
        continue;
      }
      ran++;
      if (!runStep(lab, i + 1, STEPS.get(i), out)) {
        failedSteps++;
      }
    }
    out.println();
    out.println(
        "courier lab: "
            + (ran - failedSteps)
            + " of "
            + ran
            + " step(s) passed in "
            + seconds(started)
            + (failedSteps == 0 ? "" : "; " + failedSteps + " FAILED"));
    if (keepRunning) {
      keepRunning(stack, db, out);
    } else {
      stack.close();
    }
    return failedSteps == 0 ? 0 : 1;
  }

  private static boolean runStep(Lab lab, int number, LabStep step, PrintStream out) {
    out.println();
    out.println("[" + number + "/" + STEPS.size() + "] " + step.title());
    wrap(step.why(), 94).forEach(line -> out.println("    " + line));
    int wrongBefore = lab.wrong();
    long started = System.nanoTime();
    boolean ok;
    try {
      step.run(lab);
      ok = lab.wrong() == wrongBefore;
    } catch (Exception e) {
      out.println("    [FAIL] the step stopped: " + e);
      ok = false;
    }
    out.println("  step " + number + (ok ? " passed" : " FAILED") + " in " + seconds(started));
    return ok;
  }

  private static void keepRunning(CourierInfra stack, TestDatabase db, PrintStream out)
      throws InterruptedException {
    out.println();
    out.println("The stack stays up; Ctrl-C stops it.");
    out.println("  bootstrap servers: " + stack.kafka().bootstrapServers());
    out.println(
        "  PostgreSQL:        "
            + db.jdbcUrl()
            + " (user "
            + db.username()
            + ", password "
            + db.password()
            + ")");
    out.println("  schema registry:   " + stack.schemaRegistry().url());
    out.println("  try: kcat -b " + stack.kafka().bootstrapServers() + " -L");
    out.println(
        "       courier groups describe lab-billing --set bootstrap.servers="
            + stack.kafka().bootstrapServers());
    out.println(
        "       courier dlt list lab.payments.dlt --set bootstrap.servers="
            + stack.kafka().bootstrapServers()
            + " --set audit.jdbc.url="
            + db.jdbcUrl()
            + " --set audit.jdbc.user="
            + db.username()
            + " --set audit.jdbc.password="
            + db.password());
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  stack.close();
                  stopped.countDown();
                }));
    stopped.await();
  }

  static List<String> wrap(String text, int width) {
    List<String> lines = new ArrayList<>();
    StringBuilder line = new StringBuilder();
    for (String word : text.split(" ")) {
      if (line.length() > 0 && line.length() + 1 + word.length() > width) {
        lines.add(line.toString());
        line.setLength(0);
      }
      if (line.length() > 0) {
        line.append(' ');
      }
      line.append(word);
    }
    if (line.length() > 0) {
      lines.add(line.toString());
    }
    return lines;
  }

  private static String seconds(long startedNanos) {
    return String.format(Locale.ROOT, "%.1f s", (System.nanoTime() - startedNanos) / 1e9);
  }
}
