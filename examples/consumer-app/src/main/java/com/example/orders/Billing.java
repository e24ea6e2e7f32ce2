package com.example.orders;

import dev.courier.idempotency.CanonicalForm;
import dev.courier.idempotency.IdempotentHandler;
import dev.courier.retry.FailureClassifier;
import dev.courier.retry.RecordHandler;
import dev.courier.retry.RetryingConsumer;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.sql.DataSource;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * Charges each placed order to its account exactly once: the retry ladder calls the idempotent
 * handler, whose dedupe record and balance update share one transaction.
 */
public final class Billing {

  private static final Pattern AMOUNT = Pattern.compile("\"amount\":(-?\\d+)");

  private final DataSource dataSource;
  private final IdempotentHandler<String, String> handler;

  public Billing(DataSource dataSource) {
    this.dataSource = dataSource;
    this.handler =
        IdempotentHandler.<String, String>builder()
            .dataSource(dataSource)
            .consumerName("billing")
            .canonicalForm(CanonicalForm.json())
            .effect((connection, record) -> charge(connection, record.key(), record.value()))
            .build();
  }

  public void createTables() throws SQLException {
    try (Connection c = dataSource.getConnection();
        Statement s = c.createStatement()) {
      s.execute(
          "CREATE TABLE IF NOT EXISTS balances (account text PRIMARY KEY, total integer NOT"
              + " NULL)");
    }
  }

  /** A worker over the outbox's account topic; {@code before} runs ahead of every call. */
  public RetryingConsumer<String, String> worker(
      Map<String, Object> settings, RecordHandler<String, String> before) {
    return RetryingConsumer.builder(settings, new StringDeserializer(), new StringDeserializer())
        .handler(
            record -> {
              before.handle(record);
              handler.handle(record);
            })
        .classifier(FailureClassifier.builder().build())
        .build();
  }

  public int balance(String account) throws SQLException {
    try (Connection c = dataSource.getConnection();
        PreparedStatement ps = c.prepareStatement("SELECT total FROM balances WHERE account = ?")) {
      ps.setString(1, account);
      try (var rs = ps.executeQuery()) {
        return rs.next() ? rs.getInt(1) : 0;
      }
    }
  }

  private static void charge(Connection c, String account, String payload) throws SQLException {
    Matcher amount = AMOUNT.matcher(payload);
    if (!amount.find()) {
      throw new IllegalArgumentException("no amount in " + payload);
    }
    try (PreparedStatement ps =
        c.prepareStatement(
            "INSERT INTO balances (account, total) VALUES (?, ?) ON CONFLICT (account) DO UPDATE"
                + " SET total = balances.total + EXCLUDED.total")) {
      ps.setString(1, account);
      ps.setInt(2, Integer.parseInt(amount.group(1)));
      ps.executeUpdate();
    }
  }
}
