package dev.courier.lab;

import dev.courier.testkit.CourierInfra;
import dev.courier.testkit.KafkaBroker;
import dev.courier.testkit.TestDatabase;
import java.io.PrintStream;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.Callable;
import java.util.function.Predicate;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * What every step works with: the infrastructure, one database, the output, and the tally of
 * observations. An observation that differs from what Courier promises fails the step, and the lab
 * exits non-zero.
 */
final class Lab {

  static final Duration TIMEOUT = Duration.ofSeconds(90);

  private final CourierInfra infra;
  private final TestDatabase db;
  private final PrintStream out;
  private final Progress progress;
  private int wrong;

  Lab(CourierInfra infra, TestDatabase db, PrintStream out, boolean terminal) {
    this.infra = infra;
    this.db = db;
    this.out = out;
    this.progress = new Progress(out, terminal);
  }

  KafkaBroker kafka() {
    return infra.kafka();
  }

  TestDatabase db() {
    return db;
  }

  String registryUrl() {
    return infra.schemaRegistry().url();
  }

  /** Prints an observation and whether it is what Courier promises. */
  void expect(String what, Object actual, Object expected) {
    boolean ok = Objects.equals(actual, expected);
    if (ok) {
      out.println("    [ok]   " + what + ": " + actual);
    } else {
      wrong++;
      out.println("    [FAIL] " + what + ": " + actual + ", expected " + expected);
    }
  }

  /** Prints an observation that holds when {@code ok}. */
  void check(String what, boolean ok, Object actual) {
    if (ok) {
      out.println("    [ok]   " + what + ": " + actual);
    } else {
      wrong++;
      out.println("    [FAIL] " + what + ": " + actual);
    }
  }

  /** A line of narration between observations. */
  void say(String text) {
    out.println("      " + text);
  }

  <T> T await(String what, Callable<T> probe, Predicate<T> done) throws Exception {
    return progress.await(what, TIMEOUT, probe, done);
  }

  int wrong() {
    return wrong;
  }

  /** Reads a topic from the start until {@code count} records arrived or a few seconds passed. */
  List<ConsumerRecord<String, String>> read(String topic, int count, Duration timeout) {
    return kafka().readStrings(topic, count, timeout);
  }
}
