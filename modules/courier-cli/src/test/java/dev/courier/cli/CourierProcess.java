package dev.courier.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.courier.testkit.JvmWorker;
import dev.courier.testkit.WorkerProcess;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** The {@code courier} command in its own JVM, as an operator or a container runs it. */
final class CourierProcess {

  static final Duration TIMEOUT = Duration.ofSeconds(90);
  private static final Pattern PORT = Pattern.compile("on port (\\d+)");
  private static final HttpClient HTTP = HttpClient.newHttpClient();

  private CourierProcess() {}

  /** From the packaged jar, exactly what the image runs. */
  static WorkerProcess jar(String name, Map<String, String> env, List<String> args) {
    return start(
        JvmWorker.of(Courier.class)
            .classpath(Path.of("target", "courier.jar").toAbsolutePath().toString()),
        name,
        env,
        args);
  }

  /** From the test classpath, for plugins that live in the tests. */
  static WorkerProcess classpath(String name, Map<String, String> env, List<String> args) {
    return start(JvmWorker.of(Courier.class), name, env, args);
  }

  private static WorkerProcess start(
      JvmWorker worker, String name, Map<String, String> env, List<String> args) {
    worker.name(name).args(args.toArray(String[]::new));
    env.forEach(worker::environment);
    return worker.start();
  }

  /** The port a service printed it serves on. */
  static int port(WorkerProcess process) {
    return await()
        .atMost(TIMEOUT)
        .until(
            () -> {
              Matcher m = PORT.matcher(process.output());
              if (!process.isAlive()) {
                throw new AssertionError("exited:\n" + process.output());
              }
              return m.find() ? Integer.parseInt(m.group(1)) : -1;
            },
            p -> p > 0);
  }

  static void awaitHealthy(int port) {
    awaitHealth(port, 200, "UP");
  }

  /** The first /health answer with this status and a body that contains {@code reason}. */
  static HttpResponse<String> awaitHealth(int port, int status, String reason) {
    AtomicReference<HttpResponse<String>> seen = new AtomicReference<>();
    await()
        .atMost(TIMEOUT)
        .ignoreExceptions()
        .untilAsserted(
            () -> {
              HttpResponse<String> health = get(port, "/health");
              assertThat(health.statusCode()).isEqualTo(status);
              assertThat(health.body()).contains(reason);
              seen.set(health);
            });
    return seen.get();
  }

  static HttpResponse<String> get(int port, String path) throws Exception {
    return HTTP.send(
        HttpRequest.newBuilder(URI.create("http://localhost:" + port + path)).build(),
        HttpResponse.BodyHandlers.ofString());
  }
}
