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
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.junit.jupiter.api.Test;

/**
 * The packaged application as it is deployed: `java -jar shop.jar` on the testkit's Kafka and
 * PostgreSQL. It starts, places and charges an order, and on SIGTERM stops within its grace period
 * having left its consumer group. Prints its start-up time and resident memory (BENCHMARKS.md).
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
    List<String> command = new ArrayList<>();
    command.add(ProcessHandle.current().info().command().orElse("java"));
    command.add("-Xmx512m");
    command.add("-jar");
    command.add(Path.of("target", "shop.jar").toString());
    command.add("--server.port=" + port);
    infra.springProperties(db).forEach((key, value) -> command.add("--" + key + "=" + value));
    // Its own names, beside ShopIT's application in the same Kafka and PostgreSQL server.
    command.add("--shop.topic=shopjar.order");
    command.add("--shop.billing.group=billing-jar");
    command.add("--courier.outbox.topic.prefix=shopjar");
    command.add("--courier.outbox.relay.name=shopjar-relay");
    command.add("--courier.outbox.slot.name=shopjar_slot");
    command.add("--courier.outbox.publication.name=shopjar_pub");
    command.add("--courier.outbox.offset.storage.topic=shopjar.offsets");
    ShopClient shop = new ShopClient(port);
    long launched = System.nanoTime();
    Process app =
        new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    try {
      await()
          .atMost(TIMEOUT)
          .failFast("the application exited; log in " + log, () -> !app.isAlive())
          .until(() -> shop.get("/actuator/health").contains("\"STREAMING\""));
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
      ConsumerGroupDescription group =
          infra
              .kafka()
              .admin()
              .describeConsumerGroups(List.of("billing-jar"))
              .all()
              .get()
              .get("billing-jar");
      assertThat(group.members()).as("left its group at once, no session to wait out").isEmpty();
      System.out.printf(
          "SHOP-PROCESS started in %s s (Spring's own figure), ready (relay streaming) %d ms"
              + " after launch, resident %d MiB, SIGTERM to exit %d ms%n",
          startedSeconds(log), ready / 1_000_000, rss / 1024, stopped / 1_000_000);
    } finally {
      app.destroyForcibly();
    }
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
