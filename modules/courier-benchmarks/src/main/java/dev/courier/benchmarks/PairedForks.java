package dev.courier.benchmarks;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Two benchmark methods, each in a JVM of its own as in a JMH fork, run by turns in short slices (A
 * B, B A, A B, ...) so that both are measured over the same seconds. A JMH fork runs one method for
 * its whole measurement: here the machine's speed moved by half within a fork and from one fork to
 * the next (raw Avro deserialization 2.0 M ops/s in one fork, 3.7 M in the next, 1.9-3.5 M between
 * the iterations of a third), so two forks seconds apart measured two machines. The JVM that waits
 * is idle: its JIT work is done in the warm-up slices.
 */
final class PairedForks {

  /** Calls per second of each method over its measured slices. */
  record Score(double first, double second) {}

  /** How long each side runs: warm-up slices (not counted), then measured ones. */
  record Plan(int warmUpSlices, long warmUpMillis, int slices, long sliceMillis) {

    Plan {
      if (warmUpSlices < 0 || slices < 1 || warmUpMillis < 1 || sliceMillis < 1) {
        throw new IllegalArgumentException("slices >= 1 of >= 1 ms");
      }
    }

    String describe() {
      return String.format(
          java.util.Locale.ROOT,
          "%d x %d ms warm-up then %d x %d ms measured a side, by turns",
          warmUpSlices,
          warmUpMillis,
          slices,
          sliceMillis);
    }
  }

  private PairedForks() {}

  static Score run(String first, String second, Plan plan, List<String> jvmArgs)
      throws IOException, InterruptedException {
    try (Side a = Side.start(first, jvmArgs);
        Side b = Side.start(second, jvmArgs)) {
      for (int i = 0; i < plan.warmUpSlices(); i++) {
        a.slice(plan.warmUpMillis());
        b.slice(plan.warmUpMillis());
      }
      long[] aDone = new long[2];
      long[] bDone = new long[2];
      for (int i = 0; i < plan.slices(); i++) {
        // Who goes first alternates, so neither always follows the other's garbage or cache.
        Side one = i % 2 == 0 ? a : b;
        Side two = i % 2 == 0 ? b : a;
        add(one == a ? aDone : bDone, one.slice(plan.sliceMillis()));
        add(two == a ? aDone : bDone, two.slice(plan.sliceMillis()));
      }
      return new Score(aDone[0] / (aDone[1] / 1e9), bDone[0] / (bDone[1] / 1e9));
    }
  }

  private static void add(long[] total, long[] slice) {
    total[0] += slice[0];
    total[1] += slice[1];
  }

  /** One method's JVM and the pipes to it. */
  private static final class Side implements AutoCloseable {
    private final String method;
    private final Process process;
    private final PrintStream commands;
    private final BufferedReader answers;
    private final List<String> output = new ArrayList<>();

    private Side(String method, Process process) {
      this.method = method;
      this.process = process;
      this.commands = new PrintStream(process.getOutputStream(), true, StandardCharsets.UTF_8);
      this.answers =
          new BufferedReader(
              new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
    }

    static Side start(String method, List<String> jvmArgs) throws IOException {
      List<String> command = new ArrayList<>();
      command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
      command.addAll(jvmArgs);
      command.addAll(
          List.of(
              "-cp",
              System.getProperty("java.class.path"),
              SerdeSliceWorker.class.getName(),
              method));
      Side side = new Side(method, new ProcessBuilder(command).redirectErrorStream(true).start());
      side.await(SerdeSliceWorker.READY);
      return side;
    }

    /** Runs one slice; its calls and nanoseconds. */
    long[] slice(long millis) throws IOException {
      commands.println("run " + millis);
      String[] f =
          await(SerdeSliceWorker.SLICE).substring(SerdeSliceWorker.SLICE.length()).split(" ");
      return new long[] {Long.parseLong(f[0]), Long.parseLong(f[1])};
    }

    /** The next line that starts with {@code prefix}; anything else is the JVM's own output. */
    private String await(String prefix) throws IOException {
      for (String line = answers.readLine(); line != null; line = answers.readLine()) {
        if (line.startsWith(prefix)) {
          return line;
        }
        output.add(line);
      }
      throw new IOException(
          method + "'s JVM ended (" + exitCode() + ") before \"" + prefix + "\": " + output);
    }

    private String exitCode() {
      try {
        return process.waitFor(10, TimeUnit.SECONDS) ? "exit " + process.exitValue() : "running";
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return "interrupted";
      }
    }

    @Override
    public void close() throws InterruptedException {
      commands.close();
      if (!process.waitFor(30, TimeUnit.SECONDS)) {
        process.destroyForcibly().waitFor();
      }
    }
  }
}
