package dev.courier.retry;

import dev.courier.core.CourierHeaders;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLTransientConnectionException;
import java.sql.Statement;
import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * A retry worker in its own JVM: the first call per operation fails transiently (noted in
 * PostgreSQL, so it survives the kill), later calls record when they ran. Args: bootstrap, topic,
 * group, jdbc url, user, password.
 */
public final class RetryWorkerMain {

  private RetryWorkerMain() {}

  public static void main(String[] args) throws Exception {
    String jdbc = args[3];
    String user = args[4];
    String password = args[5];
    try (Connection c = DriverManager.getConnection(jdbc, user, password);
        Statement s = c.createStatement()) {
      s.execute(
          "CREATE TABLE IF NOT EXISTS worker_first_failure (op text PRIMARY KEY, at timestamptz NOT NULL DEFAULT now())");
      s.execute(
          "CREATE TABLE IF NOT EXISTS worker_done (op text PRIMARY KEY, at timestamptz NOT NULL)");
    }
    Map<String, Object> settings = new HashMap<>();
    settings.put(RetryConfig.BOOTSTRAP_SERVERS, args[0]);
    settings.put(RetryConfig.TOPIC, args[1]);
    settings.put(RetryConfig.GROUP_ID, args[2]);
    settings.put(RetryConfig.MAX_ATTEMPTS, 3);
    settings.put(RetryConfig.BACKOFF_TYPE, "fixed");
    settings.put(RetryConfig.BACKOFF_INITIAL_MS, 6_000);
    settings.put(RetryConfig.BACKOFF_MAX_MS, 6_000);
    // Static membership: the restarted worker takes over at once instead of after a session
    // timeout.
    settings.put("kafka.group.instance.id", "retry-worker-1");
    RecordHandler<String, String> handler =
        record -> {
          String op = CourierHeaders.text(record.headers(), CourierHeaders.ID).orElseThrow();
          try (Connection c = DriverManager.getConnection(jdbc, user, password)) {
            try (PreparedStatement ps =
                c.prepareStatement(
                    "INSERT INTO worker_first_failure (op) VALUES (?) ON CONFLICT DO NOTHING")) {
              ps.setString(1, op);
              if (ps.executeUpdate() == 1) {
                System.out.println("first attempt of " + op + " failed");
                throw new SQLTransientConnectionException("downstream unavailable");
              }
            }
            try (PreparedStatement ps =
                c.prepareStatement(
                    "INSERT INTO worker_done VALUES (?, clock_timestamp()) ON CONFLICT DO NOTHING")) {
              ps.setString(1, op);
              ps.executeUpdate();
            }
          }
        };
    try (RetryingConsumer<String, String> consumer =
        RetryingConsumer.builder(settings, new StringDeserializer(), new StringDeserializer())
            .handler(handler)
            .build()) {
      consumer.run();
    }
  }
}
