package com.example.shop;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.courier.testkit.CourierInfra;
import dev.courier.testkit.FreePorts;
import dev.courier.testkit.TestDatabase;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The packaged application as it is deployed: `java -jar shop.jar` on the testkit's Kafka and
 * PostgreSQL. It starts, places and charges an order, and on SIGTERM stops within its grace period
 * having left its consumer group; killed with SIGKILL and started again, it charges every accepted
 * order once. Prints its size, start-up time and resident memory (BENCHMARKS.md).
 */
class ShopProcessIT {

  private static final Duration TIMEOUT = Duration.ofSeconds(120);

  /** spring.lifecycle.timeout-per-shutdown-phase in application.properties. */
  private static final Duration GRACE = Duration.ofSeconds(20);

  private final CourierInfra infra = CourierInfra.shared();

  @Test
  void theJarStartsChargesAnOrderAndStopsOnSigtermWithinItsGracePeriod() throws Exception {
    TestDatabase db = infra.postgres().createDatabase("shopjar");
    int port = FreePorts.next();
    Path log = Path.of("target", "shop-process.log");
    ShopClient shop = new ShopClient(port);
    long launched = System.nanoTime();
    Process app = launch(db, "shopjar", port, log);
    try {
      awaitStreaming(app, shop, log);
      long ready = System.nanoTime() - launched;
      assertThat(shop.placeOrder("j-1", "acc-j", 7)).isEqualTo(201);
      await().atMost(TIMEOUT).until(() -> charged(db, "acc-j") == 7);
      long rss = residentKib(app.pid());

      long term = System.nanoTime();
      app.destroy(); // SIGTERM
      assertThat(app.waitFor(GRACE.toSeconds(), TimeUnit.SECONDS))
          .as("stopped within the grace period; log in " + log)
          .isTrue();
      long stopped = System.nanoTime() - term;
      assertThat(members("billing-shopjar"))
          .as("left its group at once, no session to wait out")
          .isZero();
      System.out.printf(
          "SHOP-PROCESS started in %s s (Spring's own figure), ready (relay streaming) %d ms"
              + " after launch, resident %d MiB, SIGTERM to exit %d ms%n",
          startedSeconds(log), ready / 1_000_000, rss / 1024, stopped / 1_000_000);
    } finally {
      app.destroyForcibly();
    }
  }

  /**
   * The starter brings what the relay's embedded engine runs on and none of Kafka Connect's REST
   * server stack: no Jetty beside the application's Tomcat, no Jersey, HK2, JAX-RS or JAXB, no
   * plugin scanners (docs/spring-boot.md#footprint).
   */
  @Test
  void theJarCarriesTheEngineAndNoRestServerStack() throws Exception {
    Path jar = Path.of("target", "shop.jar");
    List<String> libs = new ArrayList<>();
    try (JarFile f = new JarFile(jar.toFile())) {
      f.stream()
          .map(JarEntry::getName)
          .filter(n -> n.startsWith("BOOT-INF/lib/") && n.endsWith(".jar"))
          .map(n -> n.substring("BOOT-INF/lib/".length()))
          .forEach(libs::add);
    }
    assertThat(libs)
        .anyMatch(n -> n.startsWith("debezium-embedded-"))
        .anyMatch(n -> n.startsWith("connect-runtime-"))
        .noneMatch(
            n ->
                n.matches(
                    "(jetty|jersey|hk2|jakarta\\.ws\\.rs|jaxb-api|jose4j|classgraph|javassist"
                        + "|swagger).*"));
    System.out.printf(
        "SHOP-JAR %.1f MiB, %d libraries%n", Files.size(jar) / (1024.0 * 1024), libs.size());
  }

  /**
   * SIGKILL while orders are being placed, relayed and charged, then a restart: every order that
   * committed is charged, and none twice.
   */
  @Test
  void aKilledApplicationChargesEveryCommittedOrderOnce() throws Exception {
    TestDatabase db = infra.postgres().createDatabase("shopkill");
    int port = FreePorts.next();
    Path log = Path.of("target", "shop-killed.log");
    ShopClient shop = new ShopClient(port);
    Process app = launch(db, "shopkill", port, log);
    long chargedAtKill;
    ExecutorService placing = Executors.newSingleThreadExecutor();
    try {
      awaitStreaming(app, shop, log);
      Future<Integer> accepted =
          placing.submit(
              () -> {
                int n = 0;
                try {
                  while (n < 1000 && shop.placeOrder("k-" + n, "acc-k", 1) == 201) {
                    n++;
                  }
                } catch (IOException killed) {
                  // the application is gone mid-request
                }
                return n;
              });
      // Kill with orders still arriving, in the outbox, in Kafka and in billing's hands.
      await().atMost(TIMEOUT).until(() -> charged(db, "acc-k") >= 40);
      app.destroyForcibly().waitFor(); // SIGKILL: no shutdown hook, nothing flushed or committed
      chargedAtKill = charged(db, "acc-k");
      accepted.get();
    } finally {
      app.destroyForcibly();
      placing.shutdownNow();
    }
    long committed = committedOrders(db, "acc-k");

    Path restartLog = Path.of("target", "shop-restarted.log");
    Process restarted = launch(db, "shopkill", port, restartLog);
    try {
      awaitStreaming(restarted, shop, restartLog);
      await().atMost(TIMEOUT).until(() -> charged(db, "acc-k") >= committed);
      assertThat(charged(db, "acc-k"))
          .as("charged at the kill: " + chargedAtKill)
          .isEqualTo(committed);
      System.out.printf(
          "SHOP-KILL %d orders committed, %d charged when SIGKILL came, %d after the restart%n",
          committed, chargedAtKill, charged(db, "acc-k"));
    } finally {
      restarted.destroy();
      restarted.waitFor(GRACE.toSeconds(), TimeUnit.SECONDS);
      restarted.destroyForcibly();
    }
  }

  private static long committedOrders(TestDatabase db, String account) throws Exception {
    try (Connection c = db.connection();
        Statement s = c.createStatement();
        ResultSet rs =
            s.executeQuery("SELECT count(*) FROM orders WHERE account = '" + account + "'")) {
      rs.next();
      return rs.getLong(1);
    }
  }

  /**
   * The packaged application with names of its own, beside ShopIT's in the same Kafka and
   * PostgreSQL.
   */
  private Process launch(TestDatabase db, String name, int port, Path log) throws IOException {
    List<String> command = new ArrayList<>();
    command.add(ProcessHandle.current().info().command().orElse("java"));
    command.add("-Xmx512m");
    command.add("-jar");
    command.add(Path.of("target", "shop.jar").toString());
    command.add("--server.port=" + port);
    infra.springProperties(db).forEach((key, value) -> command.add("--" + key + "=" + value));
    command.add("--shop.topic=" + name + ".order");
    command.add("--shop.billing.group=billing-" + name);
    command.add("--courier.monitor.groups=billing-" + name);
    command.add("--courier.outbox.topic.prefix=" + name);
    command.add("--courier.outbox.relay.name=" + name + "-relay");
    command.add("--courier.outbox.slot.name=" + name + "_slot");
    command.add("--courier.outbox.publication.name=" + name + "_pub");
    command.add("--courier.outbox.offset.storage.topic=" + name + ".offsets");
    // A killed instance's consumer stays in its group until its session ends (Kafka's default
    // 45 s): the restarted one gets its partitions that much later. The broker's least.
    command.add("--courier.kafka.session.timeout.ms=6000");
    return new ProcessBuilder(command)
        .redirectErrorStream(true)
        .redirectOutput(log.toFile())
        .start();
  }

  private static void awaitStreaming(Process app, ShopClient shop, Path log) {
    await()
        .atMost(TIMEOUT)
        .failFast("the application exited; log in " + log, () -> !app.isAlive())
        .until(() -> shop.get("/actuator/health").contains("\"STREAMING\""));
  }

  private int members(String group) throws Exception {
    return infra
        .kafka()
        .admin()
        .describeConsumerGroups(List.of(group))
        .all()
        .get()
        .get(group)
        .members()
        .size();
  }

  private static String startedSeconds(Path log) throws IOException {
    Matcher m =
        Pattern.compile("Started ShopApplication in ([0-9.]+) seconds")
            .matcher(Files.readString(log));
    return m.find() ? m.group(1) : "?";
  }

  private static long residentKib(long pid) throws IOException {
    for (String line : Files.readAllLines(Path.of("/proc", String.valueOf(pid), "status"))) {
      if (line.startsWith("VmRSS:")) {
        return Long.parseLong(line.replaceAll("[^0-9]", ""));
      }
    }
    return -1;
  }

  private static long charged(TestDatabase db, String account) throws Exception {
    try (Connection c = db.connection();
        Statement s = c.createStatement();
        ResultSet rs =
            s.executeQuery("SELECT charged FROM balances WHERE account = '" + account + "'")) {
      return rs.next() ? rs.getLong(1) : 0;
    } catch (java.sql.SQLException e) {
      return 0; // the application creates the table at start
    }
  }
}
