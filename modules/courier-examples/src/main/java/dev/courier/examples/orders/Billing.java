package dev.courier.examples.orders;

import dev.courier.core.internal.SqlMigrations;
import dev.courier.idempotency.IdempotentConsumer;
import dev.courier.idempotency.IdempotentConsumerConfig;
import dev.courier.idempotency.IdempotentHandler;
import dev.courier.idempotency.OperationKeyExtractor;
import dev.courier.schema.KafkaAvroDeserializer;
import dev.courier.schema.order.OrderCreated;
import dev.courier.schema.order.OrderPaid;
import dev.courier.schema.order.OrderShipped;
import io.micrometer.core.instrument.MeterRegistry;
import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * The billing reference consumer: a plain consumer group whose effects (orders and account totals
 * in PostgreSQL) commit together with Courier's dedupe record, and whose offsets are committed only
 * after that. Operation key: the event's {@code eventId}. A replay re-reads events and the store
 * answers DUPLICATE; totals do not move.
 */
public final class Billing {

  private Billing() {}

  /** Creates billing's tables if they are missing. */
  public static void migrate(DataSource dataSource) {
    SqlMigrations.apply(dataSource, "billing", List.of("V1__billing.sql"));
  }

  /**
   * A consumer for {@code topic} in {@code consumerConfig}'s group, reading Avro order events
   * through the registry at {@code registryUrl}.
   */
  public static IdempotentConsumer<String, Object> consumer(
      Map<String, Object> clientSettings,
      String group,
      String registryUrl,
      String topic,
      DataSource dataSource,
      MeterRegistry registry) {
    migrate(dataSource);
    Map<String, Object> config = new HashMap<>(clientSettings);
    config.put(IdempotentConsumerConfig.GROUP_ID, group);
    KafkaAvroDeserializer values = new KafkaAvroDeserializer();
    values.configure(
        Map.of("schema.registry.url", registryUrl, "specific.avro.reader", true), false);
    IdempotentHandler<String, Object> handler =
        IdempotentHandler.<String, Object>builder()
            .dataSource(dataSource)
            .consumerName(group)
            .keyExtractor(OperationKeyExtractor.fromValue("eventId", Billing::eventId))
            .canonicalForm(new AvroCanonicalForm())
            .effect((connection, record) -> apply(connection, record.value()))
            .meterRegistry(registry)
            .build();
    return IdempotentConsumer.builder(config, new StringDeserializer(), values)
        .topics(List.of(topic))
        .handler(handler)
        .meterRegistry(registry)
        .build();
  }

  static String eventId(Object event) {
    if (event instanceof OrderCreated e) {
      return e.getEventId();
    } else if (event instanceof OrderPaid e) {
      return e.getEventId();
    } else if (event instanceof OrderShipped e) {
      return e.getEventId();
    }
    return null;
  }

  /** The business effect, inside the store's transaction. */
  static void apply(Connection c, Object event) throws SQLException {
    if (event instanceof OrderCreated e) {
      update(
          c,
          "INSERT INTO billing_order (order_id, account_id, total, status) VALUES (?, ?, ?,"
              + " 'created') ON CONFLICT (order_id) DO NOTHING",
          e.getOrderId(),
          e.getAccountId(),
          e.getTotal());
    } else if (event instanceof OrderPaid e) {
      String account = accountOf(c, e.getOrderId());
      update(c, "UPDATE billing_order SET status = 'paid' WHERE order_id = ?", e.getOrderId());
      update(
          c,
          "INSERT INTO billing_account (account_id, paid_total, payments) VALUES (?, ?, 1)"
              + " ON CONFLICT (account_id) DO UPDATE SET paid_total = billing_account.paid_total"
              + " + EXCLUDED.paid_total, payments = billing_account.payments + 1",
          account,
          e.getAmount());
    } else if (event instanceof OrderShipped e) {
      update(c, "UPDATE billing_order SET status = 'shipped' WHERE order_id = ?", e.getOrderId());
    } else {
      throw new IllegalArgumentException(
          "billing does not know events of type "
              + (event == null ? "null" : event.getClass().getName()));
    }
  }

  private static String accountOf(Connection c, String orderId) throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement("SELECT account_id FROM billing_order WHERE order_id = ?")) {
      ps.setString(1, orderId);
      try (ResultSet rs = ps.executeQuery()) {
        if (!rs.next()) {
          throw new IllegalStateException("payment for unknown order " + orderId);
        }
        return rs.getString(1);
      }
    }
  }

  private static void update(Connection c, String sql, Object... params) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(sql)) {
      for (int i = 0; i < params.length; i++) {
        ps.setObject(i + 1, params[i]);
      }
      ps.executeUpdate();
    }
  }

  /** An account's paid total and number of payments, or zeros when it has none. */
  public static AccountTotals totals(DataSource dataSource, String account) throws SQLException {
    try (Connection c = dataSource.getConnection();
        PreparedStatement ps =
            c.prepareStatement(
                "SELECT paid_total, payments FROM billing_account WHERE account_id = ?")) {
      ps.setString(1, account);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next()
            ? new AccountTotals(rs.getBigDecimal(1), rs.getInt(2))
            : new AccountTotals(BigDecimal.ZERO, 0);
      }
    }
  }

  /** What billing holds for one account. */
  public record AccountTotals(BigDecimal paid, int payments) {}
}
