package dev.courier.lab;

import dev.courier.testkit.CourierInfra;
import dev.courier.testkit.InfraSettings;
import dev.courier.testkit.TestDatabase;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

@Command(
    name = "lab",
    mixinStandardHelpOptions = true,
    // The steps' list is added from STEPS by describe(): help cannot drift from what runs.
    description = {
      "Runs Courier's scenarios end to end on an embedded Kafka broker, PostgreSQL and schema"
          + " registry, with real child processes where a crash is part of the story. Each step"
          + " prints what it observed and checks it; the exit status is 1 if any observation is"
          + " wrong."
    })
public final class LabCommand implements Callable<Integer> {

  static final List<LabStep> STEPS =
      List.of(
          new OutboxStep(),
          new CrashStep(),
          new ReplayStep(),
          new RetryStep(),
          new OverloadStep(),
          new TraceStep());

  @Option(
      names = "--step",
      paramLabel = "STEP",
      description =
          "Run only these steps, by number or id (e.g. 4 or retry; repeatable or comma-separated).",
      split = ",")
  List<String> steps = new ArrayList<>();

  @Option(
      names = "--verbose",
      description =
          "Show the clients' and the embedded servers' warnings on the terminal (by default they"
              + " go to a log file, named at the start, so the terminal tells only the story).")
  boolean verbose;

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

  /** The command's description with one line per step, from {@link #STEPS}. */
  public static String[] describe(String[] base) {
    List<String> lines = new ArrayList<>(List.of(base));
    for (int i = 0; i < STEPS.size(); i++) {
      lines.add(
          String.format(
              Locale.ROOT, "  %d %-9s %s", i + 1, STEPS.get(i).id(), STEPS.get(i).title()));
    }
    return lines.toArray(String[]::new);
  }

  /** The step numbers (from 1) that {@code --step} picks, in the lab's order. */
  static Set<Integer> chosen(List<String> steps) {
    Set<Integer> chosen = new TreeSet<>();
    for (String step : steps) {
      String s = step.trim();
      int n = -1;
      for (int i = 0; i < STEPS.size(); i++) {
        if (STEPS.get(i).id().equalsIgnoreCase(s) || String.valueOf(i + 1).equals(s)) {
          n = i + 1;
        }
      }
      if (n < 0) {
        throw new IllegalArgumentException(
            "--step "
                + s
                + ": steps are 1 to "
                + STEPS.size()
                + " or "
                + String.join(", ", STEPS.stream().map(LabStep::id).toList()));
      }
      chosen.add(n);
    }
    return chosen;
  }

  @Override
  public Integer call() throws Exception {
    PrintStream out = System.out;
    Set<Integer> chosen = chosen(steps);
    Path logFile = verbose ? null : LabLog.toFile();
    if (logFile != null) {
      out.println("courier lab: warnings of the clients and servers go to " + logFile);
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
    PrintStream formatter = logFile == null ? System.err : LabLog.append(logFile);
    System.setOut(formatter);
    try {
      stack = CourierInfra.start(settings);
    } finally {
      System.setOut(out);
      if (formatter != System.err) {
        formatter.close();
      }
    }
    TestDatabase db = stack.postgres().createDatabase("lab");
    out.println("  " + stack.describe());
    out.println("  schema registry: " + stack.schemaRegistry().url());
    out.println("  up in " + seconds(started));
    Lab lab = new Lab(stack, db, out, System.console() != null);
    int failedSteps = 0;
    int ran = 0;
    for (int i = 0; i < STEPS.size(); i++) {
      if (!chosen.isEmpty() && !chosen.contains(i + 1)) {
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
        "       courier dlt list lab.payments.lab-lab.payments.dlt --set bootstrap.servers="
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
