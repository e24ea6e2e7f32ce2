package dev.courier.retry;

import dev.courier.core.CourierHeaders;
import dev.courier.idempotency.IdempotentHandler;
import dev.courier.idempotency.Outcome;
import dev.courier.testkit.KafkaBroker;
import dev.courier.testkit.TestDatabase;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLTransientConnectionException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * Account credits ("acc-1:10") applied through Courier's idempotent store, with failures the test
 * scripts per operation key: transient ones a number of times, permanent ones on negative amounts.
 */
final class CreditFixture {

  final KafkaBroker kafka;
  final TestDatabase db;
  final Map<String, AtomicInteger> calls = new ConcurrentHashMap<>();
  final Map<String, Integer> transientFailures = new ConcurrentHashMap<>();
  final List<Duration> lateness = new CopyOnWriteArrayList<>();
  final List<Outcome> outcomes = new CopyOnWriteArrayList<>();
  final IdempotentHandler<String, String> idempotent;

  /** The consumer group of the ladder, and the idempotent store's consumer name. */
  final String group;

  CreditFixture(KafkaBroker kafka, TestDatabase db, String consumerName) throws Exception {
    this.kafka = kafka;
    this.db = db;
    this.group = consumerName;
    try (Connection c = db.connection();
        Statement s = c.createStatement()) {
      s.execute(
          "CREATE TABLE IF NOT EXISTS retry_account (account text PRIMARY KEY, balance bigint NOT NULL)");
    }
    this.idempotent =
        IdempotentHandler.<String, String>builder()
            .dataSource(db.dataSource())
            .consumerName(consumerName)
            .effect(CreditFixture::credit)
            .build();
  }

  /** The handler: count the call, note lateness, fail as scripted, else apply once. */
  RecordHandler<String, String> handler() {
    return record -> {
      String key = CourierHeaders.text(record.headers(), CourierHeaders.ID).orElseThrow();
      calls.computeIfAbsent(key, k -> new AtomicInteger()).incrementAndGet();
      CourierHeaders.text(record.headers(), CourierHeaders.DUE)
          .map(Long::parseLong)
          .map(Instant::ofEpochMilli)
          .ifPresent(due -> lateness.add(Duration.between(due, Instant.now())));
      Integer left = transientFailures.get(key);
      if (left != null && left > 0) {
        transientFailures.put(key, left - 1);
        throw new SQLTransientConnectionException("payment database unavailable");
      }
      outcomes.add(idempotent.handle(record));
    };
  }

  static void credit(Connection c, ConsumerRecord<String, String> record) throws Exception {
    String[] parts = record.value().split(":");
    long amount = Long.parseLong(parts[1]);
    if (amount <= 0) {
      throw new IllegalArgumentException("credit amount must be positive, got " + amount);
    }
    try (PreparedStatement ps =
        c.prepareStatement(
            "INSERT INTO retry_account VALUES (?, ?) ON CONFLICT (account) DO UPDATE"
                + " SET balance = retry_account.balance + EXCLUDED.balance")) {
      ps.setString(1, parts[0]);
      ps.setLong(2, amount);
      ps.executeUpdate();
    }
  }

  long balance(String account) throws Exception {
    try (Connection c = db.connection();
        PreparedStatement ps =
            c.prepareStatement("SELECT balance FROM retry_account WHERE account = ?")) {
      ps.setString(1, account);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? rs.getLong(1) : 0;
      }
    }
  }

  int calls(String key) {
    AtomicInteger n = calls.get(key);
    return n == null ? 0 : n.get();
  }

  void send(String topic, String operationKey, String value, Map<String, String> headers)
      throws Exception {
    try (KafkaProducer<String, String> producer =
        new KafkaProducer<>(
            kafka.producerConfig(), new StringSerializer(), new StringSerializer())) {
      ProducerRecord<String, String> r = new ProducerRecord<>(topic, value.split(":")[0], value);
      r.headers().add(CourierHeaders.ID, operationKey.getBytes(StandardCharsets.UTF_8));
      headers.forEach((k, v) -> r.headers().add(k, v.getBytes(StandardCharsets.UTF_8)));
      producer.send(r).get();
    }
  }

  /** The dead-letter topic of this fixture's group on {@code topic}. */
  String dlt(String topic) {
    return new RetryTopics(topic, group, 2).deadLetter();
  }

  /** A ladder of this fixture's group on {@code topic}. */
  Map<String, Object> settings(String topic) {
    return settings(topic, group);
  }

  Map<String, Object> settings(String topic, String group) {
    Map<String, Object> settings =
        LadderTestSettings.of(
            Map.of(RetryConfig.BOOTSTRAP_SERVERS, kafka.bootstrapServers()), topic, group);
    settings.put(RetryConfig.MAX_ATTEMPTS, 3);
    settings.put(RetryConfig.BACKOFF_INITIAL_MS, 500);
    settings.put(RetryConfig.BACKOFF_MAX_MS, 500);
    return settings;
  }
}
