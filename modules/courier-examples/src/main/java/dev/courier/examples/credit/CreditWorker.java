package dev.courier.examples.credit;

import dev.courier.core.CrashPoints;
import dev.courier.idempotency.IdempotentConsumer;
import dev.courier.idempotency.IdempotentConsumerConfig;
import dev.courier.idempotency.IdempotentHandler;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * The reference job of the crash scenario (CreditCrashIT and step 2 of {@code courier lab}), run in
 * a child JVM: credit an account by the amount in each record ({@code "17:10"} credits account 17
 * by 10). {@code guarded} goes through Courier's idempotent consumer; {@code unguarded} is the
 * naive loop (effect, then offset commit) that double-credits after a crash between the two.
 *
 * <p>Arguments: mode, bootstrap servers, JDBC URL, user, password, topic, group, records to handle.
 */
public final class CreditWorker {

  private CreditWorker() {}

  public static void main(String[] args) throws Exception {
    String mode = args[0];
    Map<String, Object> config = new HashMap<>();
    config.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, args[1]);
    config.put(ConsumerConfig.GROUP_ID_CONFIG, args[6]);
    config.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    config.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    // Static membership: the restarted worker takes the killed one's place at once instead of
    // waiting for its session to time out (as a redeployed pod with a stable name would).
    config.put(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG, args[6] + "-worker-1");
    Map<String, Object> courier = new HashMap<>();
    courier.put(IdempotentConsumerConfig.BOOTSTRAP_SERVERS, args[1]);
    courier.put(IdempotentConsumerConfig.GROUP_ID, args[6]);
    courier.put("kafka." + ConsumerConfig.GROUP_INSTANCE_ID_CONFIG, args[6] + "-worker-1");
    PGSimpleDataSource db = new PGSimpleDataSource();
    db.setURL(args[2]);
    db.setUser(args[3]);
    db.setPassword(args[4]);
    String topic = args[5];
    int expected = Integer.parseInt(args[7]);
    if (mode.equals("guarded")) {
      guarded(courier, db, topic, expected);
    } else {
      unguarded(config, db, topic, expected);
    }
    System.out.println("credit worker done: " + mode);
  }

  public static void credit(Connection c, ConsumerRecord<String, String> record) throws Exception {
    String[] parts = record.value().split(":");
    try (PreparedStatement ps =
        c.prepareStatement("UPDATE accounts SET total = total + ? WHERE id = ?")) {
      ps.setBigDecimal(1, new java.math.BigDecimal(parts[1]));
      ps.setInt(2, Integer.parseInt(parts[0]));
      if (ps.executeUpdate() != 1) {
        throw new IllegalStateException("no account " + parts[0]);
      }
    }
  }

  private static void guarded(
      Map<String, Object> config, PGSimpleDataSource db, String topic, int expected) {
    IdempotentHandler<String, String> handler =
        IdempotentHandler.<String, String>builder()
            .dataSource(db)
            .consumerName("billing")
            .effect(CreditWorker::credit)
            .build();
    try (IdempotentConsumer<String, String> consumer =
        IdempotentConsumer.builder(config, new StringDeserializer(), new StringDeserializer())
            .topics(List.of(topic))
            .handler(handler)
            .build()) {
      consumer.runUntil(progress -> progress.handled() >= expected);
      System.out.println("progress " + consumer.progress());
    }
  }

  private static void unguarded(
      Map<String, Object> config, PGSimpleDataSource db, String topic, int expected)
      throws Exception {
    int handled = 0;
    try (KafkaConsumer<String, String> consumer =
            new KafkaConsumer<>(config, new StringDeserializer(), new StringDeserializer());
        Connection c = DriverManager.getConnection(db.getURL(), db.getUser(), db.getPassword())) {
      consumer.subscribe(List.of(topic));
      while (handled < expected) {
        for (ConsumerRecord<String, String> record : consumer.poll(Duration.ofMillis(500))) {
          credit(c, record); // auto-commit: the credit is durable here
          handled++;
        }
        if (handled > 0) {
          CrashPoints.AFTER_DB_COMMIT_BEFORE_OFFSET_COMMIT.reach();
          consumer.commitSync();
        }
      }
    }
  }
}
