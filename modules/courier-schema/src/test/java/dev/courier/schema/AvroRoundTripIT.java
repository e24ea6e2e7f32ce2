package dev.courier.schema;

import static org.assertj.core.api.Assertions.assertThat;

import dev.courier.schema.credit.CreditRequested;
import dev.courier.testkit.BackendMatrix;
import dev.courier.testkit.CourierInfra;
import dev.courier.testkit.CourierInfraTest;
import dev.courier.testkit.KafkaBroker;
import dev.courier.testkit.Polling;
import dev.courier.testkit.UniqueNames;
import java.math.BigDecimal;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.util.Utf8;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;

/** Courier's serde through a real broker and the testkit's registry. */
@CourierInfraTest
@BackendMatrix
class AvroRoundTripIT {

  private static final int RECORDS = 50;

  @Test
  void producesAndConsumesSpecificAndGenericWithOneRegistration(CourierInfra infra) {
    KafkaBroker kafka = infra.kafka();
    String url = infra.schemaRegistry().url();
    String topic = UniqueNames.topic("credits");
    kafka.createTopic(topic, 3);
    List<CreditRequested> sent = credits();

    Map<String, Object> serde =
        Map.of("schema.registry.url", url, "avro.remove.java.properties", true);
    SchemaRegistryClient producerClient = SchemaRegistryClient.create(serde);
    KafkaAvroSerializer serializer = new KafkaAvroSerializer(producerClient);
    serializer.configure(serde, false);
    try (KafkaProducer<String, Object> producer =
        new KafkaProducer<>(kafka.producerConfig(), new StringSerializer(), serializer)) {
      for (CreditRequested credit : sent) {
        producer.send(new ProducerRecord<>(topic, credit.getAccountId(), credit));
      }
      producer.flush();
    }
    assertThat(producerClient.requestsSent())
        .as("schema registered once for %d records", RECORDS)
        .isEqualTo(1);

    // The registered schema is the contract in schemas/, not the compiler's variant of it.
    RegisteredSchema registered = producerClient.latest(topic + "-value");
    assertThat(registered.version()).isEqualTo(1);
    assertThat(registered.schema().toString()).doesNotContain("avro.java.string");

    List<Object> specific =
        consume(
            kafka,
            topic,
            Map.of("schema.registry.url", url, "specific.avro.reader", true),
            "specific");
    assertThat(specific).hasSize(RECORDS).allMatch(CreditRequested.class::isInstance);
    assertThat(specific).containsExactlyInAnyOrderElementsOf(sent);

    List<Object> generic = consume(kafka, topic, Map.of("schema.registry.url", url), "generic");
    assertThat(generic).hasSize(RECORDS).allMatch(GenericRecord.class::isInstance);
    assertThat(generic)
        .extracting(r -> ((GenericRecord) r).get("operationId"))
        .containsExactlyInAnyOrderElementsOf(
            sent.stream().map(c -> (Object) new Utf8(c.getOperationId())).toList());
  }

  /** Configured by class name, as a team would in its consumer properties. */
  private static List<Object> consume(
      KafkaBroker kafka, String topic, Map<String, Object> serde, String name) {
    Map<String, Object> config = new HashMap<>(kafka.consumerConfig(UniqueNames.group(name)));
    config.putAll(serde);
    config.put("key.deserializer", StringDeserializer.class.getName());
    config.put("value.deserializer", KafkaAvroDeserializer.class.getName());
    try (KafkaConsumer<String, Object> consumer = new KafkaConsumer<>(config)) {
      consumer.subscribe(List.of(topic));
      return Polling.valuesUntil(consumer, RECORDS, Duration.ofSeconds(60));
    }
  }

  private static List<CreditRequested> credits() {
    List<CreditRequested> credits = new ArrayList<>();
    for (int i = 0; i < RECORDS; i++) {
      credits.add(
          CreditRequested.newBuilder()
              .setOperationId("op-" + i)
              .setAccountId("acc-" + (i % 7))
              .setAmount(new BigDecimal(i + ".25"))
              .setCurrency("EUR")
              .setRequestedAt(Instant.parse("2026-03-01T10:00:00Z").plusSeconds(i))
              .setDeadline(i % 2 == 0 ? null : Instant.parse("2026-03-02T10:00:00Z"))
              .setReference(i % 3 == 0 ? null : "ref-" + i)
              .build());
    }
    return credits;
  }
}
