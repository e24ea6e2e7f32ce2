package com.example.shop;

import dev.courier.outbox.OutboxEvent;
import dev.courier.spring.TransactionalOutbox;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/** Places orders: the order row and its OrderPlaced event commit together, or neither does. */
@Service
public class Orders {

  private final JdbcTemplate jdbc;
  private final TransactionalOutbox outbox;

  public Orders(JdbcTemplate jdbc, TransactionalOutbox outbox) {
    this.jdbc = jdbc;
    this.outbox = outbox;
  }

  @Transactional
  public void place(String orderId, String account, long amount) {
    jdbc.update(
        "INSERT INTO orders (id, account, amount) VALUES (?, ?, ?)", orderId, account, amount);
    outbox.write(
        OutboxEvent.builder()
            .operationKey("order-" + orderId + "-placed") // the same order, the same event id
            .aggregate("order", orderId) // topic <prefix>.order, key = order id
            .eventType("OrderPlaced")
            .json(
                "{\"order\":\""
                    + orderId
                    + "\",\"account\":\""
                    + account
                    + "\",\"amount\":"
                    + amount
                    + "}")
            .build());
    // Checked last on purpose: a refusal here rolls back the row and the event written above.
    if (amount <= 0) {
      throw new IllegalArgumentException("amount must be positive, was " + amount);
    }
  }
}
