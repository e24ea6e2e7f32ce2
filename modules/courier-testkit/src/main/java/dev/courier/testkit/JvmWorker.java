package dev.courier.testkit;

import dev.courier.core.CrashPoint;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * A worker to run in a child JVM on this JVM's classpath, optionally armed to stop at a {@link
 * CrashPoint} so the test can kill it there with SIGKILL and start a fresh one.
 *
 * <pre>{@code
 * WorkerProcess worker = JvmWorker.of(BillingWorker.class)
 *     .args(db.jdbcUrl(), kafka.bootstrapServers())
 *     .crashAt(CrashPoints.AFTER_DB_COMMIT_BEFORE_OFFSET_COMMIT)
 *     .start();
 * worker.killAtCrashPoint(Duration.ofSeconds(60));   // SIGKILL once it stands at the point
 * JvmWorker.of(BillingWorker.class).args(...).start().awaitExit(Duration.ofSeconds(60));
 * }</pre>
 */
public final class JvmWorker {

  private final String mainClass;
  private final List<String> args = new ArrayList<>();
  private final List<String> jvmOptions = new ArrayList<>(List.of("-Xmx256m", "-XX:+UseSerialGC"));
  private final Map<String, String> systemProperties = new LinkedHashMap<>();
  private final Map<String, String> environment = new LinkedHashMap<>();
  private String name;
  private String crashPoint;
  private String classpath = System.getProperty("java.class.path");
  private Path javaHome = Path.of(System.getProperty("java.home"));

  /**
   * JVM options every worker of this test run gets besides its own, from the system property of
   * this name (whitespace-separated): a build can, for example, spare its short-lived workers the
   * optimizing compiler.
   */
  public static final String OPTIONS_PROPERTY = "courier.worker.jvm.options";

  private JvmWorker(String mainClass) {
    this.mainClass = mainClass;
    this.name = mainClass.substring(mainClass.lastIndexOf('.') + 1);
    for (String option : System.getProperty(OPTIONS_PROPERTY, "").trim().split("\\s+")) {
      if (!option.isEmpty()) {
        jvmOptions.add(option);
      }
    }
  }

  /** A worker whose {@code main(String[])} is in this class. */
  public static JvmWorker of(Class<?> mainClass) {
    return new JvmWorker(mainClass.getName());
  }

  /**
   * A worker whose {@code main(String[])} is in the class of this name, on a {@link
   * #classpath(String)} of its own (e.g. a packaged jar this build does not depend on).
   */
  public static JvmWorker of(String mainClass) {
    return new JvmWorker(Objects.requireNonNull(mainClass, "mainClass"));
  }

  public JvmWorker name(String name) {
    this.name = Objects.requireNonNull(name, "name");
    return this;
  }

  public JvmWorker args(String... values) {
    args.addAll(List.of(values));
    return this;
  }

  public JvmWorker systemProperty(String key, String value) {
    systemProperties.put(key, value);
    return this;
  }

  public JvmWorker environment(String key, String value) {
    environment.put(key, value);
    return this;
  }

  /** Runs on this classpath instead of this JVM's (e.g. a packaged executable jar). */
  public JvmWorker classpath(String classpath) {
    this.classpath = Objects.requireNonNull(classpath, "classpath");
    return this;
  }

  public JvmWorker jvmOption(String option) {
    jvmOptions.add(option);
    return this;
  }

  /** Arms the point: the worker stops the first time it reaches it. */
  public JvmWorker crashAt(CrashPoint point) {
    return crashAt(point, 1);
  }

  /** Arms the point: the worker stops the {@code occurrence}-th time it reaches it. */
  public JvmWorker crashAt(CrashPoint point, int occurrence) {
    this.crashPoint = point.armingValue(occurrence);
    return this;
  }

  /** Runs the child on another JDK than this JVM's (for example a newer one, for its options). */
  public JvmWorker javaHome(Path home) {
    this.javaHome = home;
    return this;
  }

  /** Starts the child JVM. */
  public WorkerProcess start() {
    List<String> command = new ArrayList<>();
    command.add(javaHome.resolve("bin").resolve("java").toString());
    command.addAll(jvmOptions);
    // The test JVM's classpath (under Surefire a manifest-only jar that lists every entry).
    command.add("-cp");
    command.add(classpath);
    Map<String, String> properties = new LinkedHashMap<>(systemProperties);
    if (crashPoint != null) {
      properties.put(CrashPoint.ARM_PROPERTY, crashPoint);
    }
    properties.forEach((k, v) -> command.add("-D" + k + "=" + v));
    command.add(mainClass);
    command.addAll(args);
    return WorkerProcess.start(name, command, environment, crashPoint);
  }
}
