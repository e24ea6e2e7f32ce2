package dev.courier.examples.orders;

import dev.courier.schema.order.OrderCreated;
import dev.courier.schema.order.OrderPaid;
import dev.courier.schema.order.OrderShipped;
import java.math.BigDecimal;

/** Analytics' view of one order, folded from its events. */
public record OrderState(String accountId, String status, BigDecimal total) {

  static final OrderState NONE = new OrderState("", "", BigDecimal.ZERO.setScale(2));

  public OrderState {
    total = total.setScale(2);
  }

  boolean known() {
    return !status.isEmpty();
  }

  /** The state after an event; an order's status only moves forward (a replay cannot rewind it). */
  OrderState apply(Object event) {
    if (event instanceof OrderCreated e) {
      return new OrderState(e.getAccountId(), later(status, "created"), e.getTotal());
    } else if (event instanceof OrderPaid) {
      return new OrderState(accountId, later(status, "paid"), total);
    } else if (event instanceof OrderShipped) {
      return new OrderState(accountId, later(status, "shipped"), total);
    }
    return this;
  }

  private static String later(String current, String next) {
    return rank(next) >= rank(current) ? next : current;
  }

  private static int rank(String status) {
    return switch (status) {
      case "created" -> 1;
      case "paid" -> 2;
      case "shipped" -> 3;
      default -> 0;
    };
  }
}
