package com.example.shop;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.courier.idempotency.Outcome;
import dev.courier.spring.CourierRetryContainerFactory;
import dev.courier.spring.TransactionalIdempotency;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.kafka.annotation.KafkaListener;
import org.springframework.stereotype.Component;

/**
 * Charges each placed order once: Courier's retry ladder calls this listener (transient failures
 * climb the delay tiers, permanent ones go to the DLT), and Courier's idempotent store records the
 * order's operation key with the balance change in one transaction, so a redelivery or a replay of
 * a charged order changes nothing.
 */
@Component
public class Billing {

  private static final ObjectMapper JSON = new ObjectMapper();

  private final TransactionalIdempotency idempotency;
  private final PaymentGateway gateway;
  private final JdbcTemplate jdbc;

  public Billing(TransactionalIdempotency idempotency, PaymentGateway gateway, JdbcTemplate jdbc) {
    this.idempotency = idempotency;
    this.gateway = gateway;
    this.jdbc = jdbc;
  }

  @KafkaListener(
      id = "${shop.billing.group:billing}",
      topics = "${shop.topic}",
      containerFactory = CourierRetryContainerFactory.BEAN_NAME)
  public Outcome on(ConsumerRecord<String, String> record) throws Exception {
    JsonNode order = JSON.readTree(record.value());
    String account = order.get("account").asText();
    long amount = order.get("amount").asLong();
    String key = new String(record.headers().lastHeader("id").value());
    return idempotency.once(
        "billing",
        record,
        () -> {
          gateway.charge(key, account, amount); // the gateway dedupes on the same key
          jdbc.update(
              "INSERT INTO balances (account, charged) VALUES (?, ?) ON CONFLICT (account)"
                  + " DO UPDATE SET charged = balances.charged + EXCLUDED.charged",
              account,
              amount);
        });
  }
}
