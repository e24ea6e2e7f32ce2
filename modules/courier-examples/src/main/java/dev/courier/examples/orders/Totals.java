package dev.courier.examples.orders;

import java.math.BigDecimal;

/** A projection cell: how many orders and their summed total. */
public record Totals(long count, BigDecimal total) {

  public static final Totals ZERO = new Totals(0, BigDecimal.ZERO.setScale(2));

  public Totals {
    total = total.setScale(2);
  }

  Totals plus(OrderState order) {
    return new Totals(count + 1, total.add(order.total()));
  }

  Totals minus(OrderState order) {
    return new Totals(count - 1, total.subtract(order.total()));
  }
}
