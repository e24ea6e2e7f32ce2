package com.example.orders;

import dev.courier.outbox.OutboxEvent;
import dev.courier.outbox.OutboxWriter;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import javax.sql.DataSource;

/** Places orders: the order row and its {@code OrderPlaced} event commit together, or neither. */
public final class Orders {

  private final DataSource dataSource;
  private final OutboxWriter outbox = OutboxWriter.create();

  public Orders(DataSource dataSource) {
    this.dataSource = dataSource;
  }

  public void createTables() throws SQLException {
    try (Connection c = dataSource.getConnection();
        Statement s = c.createStatement()) {
      s.execute(
          "CREATE TABLE IF NOT EXISTS orders (id text PRIMARY KEY, account text NOT NULL,"
              + " amount integer NOT NULL)");
    }
  }

  /** The order's id is the operation key: placing the same order twice fails on the primary key. */
  public void place(String orderId, String account, int amount) throws SQLException {
    try (Connection c = dataSource.getConnection()) {
      c.setAutoCommit(false);
      try (PreparedStatement ps =
          c.prepareStatement("INSERT INTO orders (id, account, amount) VALUES (?, ?, ?)")) {
        ps.setString(1, orderId);
        ps.setString(2, account);
        ps.setInt(3, amount);
        ps.executeUpdate();
      }
      outbox.write(
          c,
          OutboxEvent.builder()
              .operationKey("order-" + orderId)
              .aggregate("account", account)
              .eventType("OrderPlaced")
              .json("{\"order\":\"" + orderId + "\",\"amount\":" + amount + "}")
              .build());
      c.commit();
    }
  }
}
