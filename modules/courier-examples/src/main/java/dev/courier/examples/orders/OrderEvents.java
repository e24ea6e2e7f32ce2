package dev.courier.examples.orders;

import dev.courier.schema.KafkaAvroSerializer;
import dev.courier.schema.order.OrderCreated;
import dev.courier.schema.order.OrderLine;
import dev.courier.schema.order.OrderPaid;
import dev.courier.schema.order.OrderShipped;
import java.math.BigDecimal;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;

/** Produces Avro order events (one topic, several record types) keyed by order id. */
public final class OrderEvents implements AutoCloseable {

  private final KafkaProducer<String, Object> producer;
  private final String topic;

  /** A producer with {@code producerConfig} (at least bootstrap.servers) and the registry. */
  public OrderEvents(Map<String, Object> producerConfig, String registryUrl, String topic) {
    KafkaAvroSerializer values = new KafkaAvroSerializer();
    values.configure(
        Map.of(
            "schema.registry.url",
            registryUrl,
            "value.subject.name.strategy",
            "io.confluent.kafka.serializers.subject.TopicRecordNameStrategy"),
        false);
    this.producer = new KafkaProducer<>(producerConfig, new StringSerializer(), values);
    this.topic = topic;
  }

  public void created(String order, String account, String total) throws Exception {
    send(
        order,
        OrderCreated.newBuilder()
            .setOrderId(order)
            .setEventId(order + "-created")
            .setAccountId(account)
            .setLines(
                List.of(
                    OrderLine.newBuilder()
                        .setSku("sku-1")
                        .setQuantity(1)
                        .setUnitPrice(new BigDecimal(total))
                        .build()))
            .setTotal(new BigDecimal(total))
            .setCurrency("EUR")
            .setCreatedAt(Instant.now())
            .build());
  }

  public void paid(String order, String amount) throws Exception {
    send(
        order,
        OrderPaid.newBuilder()
            .setOrderId(order)
            .setEventId(order + "-paid")
            .setPaymentId("pay-" + order)
            .setAmount(new BigDecimal(amount))
            .setCurrency("EUR")
            .setPaidAt(Instant.now())
            .build());
  }

  public void shipped(String order) throws Exception {
    send(
        order,
        OrderShipped.newBuilder()
            .setOrderId(order)
            .setEventId(order + "-shipped")
            .setCarrier("dhl")
            .setTrackingNumber(null)
            .setShippedAt(Instant.now())
            .build());
  }

  private void send(String order, Object event) throws Exception {
    producer.send(new ProducerRecord<>(topic, order, event)).get();
  }

  @Override
  public void close() {
    producer.close();
  }
}
