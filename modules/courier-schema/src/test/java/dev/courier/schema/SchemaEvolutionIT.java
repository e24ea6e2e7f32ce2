package dev.courier.schema;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.courier.schema.credit.CreditRequested;
import dev.courier.testkit.CourierInfra;
import dev.courier.testkit.CourierInfraTest;
import dev.courier.testkit.KafkaBroker;
import dev.courier.testkit.Polling;
import dev.courier.testkit.UniqueNames;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;

/**
 * CreditRequested v1 and v2 share a topic: a consumer pinned to v1 reads v2 bytes, a consumer on v2
 * (the generated class) reads v1 bytes; an incompatible v3 is refused by the registry.
 */
@CourierInfraTest
class SchemaEvolutionIT {

  private static final String SUBJECT_DIR = "dev.courier.schema.credit.CreditRequested";

  @Test
  void oldAndNewReadersReadBothVersions(CourierInfra infra) {
    KafkaBroker kafka = infra.kafka();
    String url = infra.schemaRegistry().url();
    String topic = UniqueNames.topic("credits-evolution");
    kafka.createTopic(topic, 1);
    Schema v1 = contract().versions().get(0);
    Map<String, Object> serde =
        Map.of("schema.registry.url", url, "avro.remove.java.properties", true);

    KafkaAvroSerializer serializer = new KafkaAvroSerializer();
    serializer.configure(serde, false);
    try (KafkaProducer<String, Object> producer =
        new KafkaProducer<>(kafka.producerConfig(), new StringSerializer(), serializer)) {
      producer.send(new ProducerRecord<>(topic, "acc-1", v1Credit(v1)));
      producer.send(new ProducerRecord<>(topic, "acc-1", v2Credit()));
      producer.flush();
    }
    SchemaRegistryClient client = SchemaRegistryClient.create(serde);
    assertThat(client.versions(topic + "-value")).containsExactly(1, 2);

    // A consumer built against v1: the v2 field 'reference' is dropped.
    KafkaAvroDeserializer pinnedToV1 = new KafkaAvroDeserializer(client, v1);
    pinnedToV1.configure(serde, false);
    List<Object> oldReader = consume(kafka, topic, pinnedToV1, "v1-reader");
    assertThat(oldReader).hasSize(2);
    for (Object value : oldReader) {
      GenericRecord record = (GenericRecord) value;
      assertThat(record.getSchema()).isEqualTo(v1);
      assertThat(record.hasField("reference")).isFalse();
      assertThat(record.get("operationId").toString()).startsWith("op-");
    }

    // A consumer on v2 (the generated class): v1 bytes get the default of 'reference'.
    KafkaAvroDeserializer specific = new KafkaAvroDeserializer(client);
    specific.configure(Map.of("schema.registry.url", url, "specific.avro.reader", true), false);
    List<Object> newReader = consume(kafka, topic, specific, "v2-reader");
    assertThat(newReader)
        .extracting(v -> ((CreditRequested) v).getReference())
        .containsExactly(null, "statement text");
    assertThat(((CreditRequested) newReader.get(0)).getAmount()).isEqualByComparingTo("10.00");
  }

  @Test
  void registryRefusesTheIncompatibleV3WithTheReason(CourierInfra infra) {
    String subject = UniqueNames.topic("credits-v3") + "-value";
    SchemaCatalog.Subject history =
        SchemaCatalog.load(Path.of("src/test/resources/evolution/incompatible")).subjects().get(0);
    SchemaRegistryClient client =
        SchemaRegistryClient.create(Map.of("schema.registry.url", infra.schemaRegistry().url()));
    client.register(subject, history.versions().get(0));
    client.register(subject, history.versions().get(1));

    CompatibilityResult check = client.testCompatibility(subject, history.versions().get(2));
    assertThat(check.compatible()).isFalse();
    assertThat(check.messages()).singleElement().asString().contains("channel");
    assertThatThrownBy(() -> client.register(subject, history.versions().get(2)))
        .isInstanceOfSatisfying(
            SchemaRegistryException.IncompatibleSchemaException.class,
            e -> assertThat(e.status()).isEqualTo(409))
        .hasMessageContaining("READER_FIELD_MISSING_DEFAULT_VALUE")
        .hasMessageContaining("channel");
    assertThat(client.versions(subject)).containsExactly(1, 2);
  }

  private static SchemaCatalog.Subject contract() {
    return SchemaCatalog.load(Path.of(System.getProperty("courier.schemas.dir", "../../schemas")))
        .subjects()
        .stream()
        .filter(s -> s.name().equals(SUBJECT_DIR))
        .findFirst()
        .orElseThrow();
  }

  /** A v1 producer knows no generated class for v1: it writes a generic record of the v1 file. */
  private static GenericRecord v1Credit(Schema v1) {
    GenericRecord record = new GenericData.Record(v1);
    record.put("operationId", "op-v1");
    record.put("accountId", "acc-1");
    record.put("amount", ByteBuffer.wrap(new BigDecimal("10.00").unscaledValue().toByteArray()));
    record.put("currency", "EUR");
    record.put("requestedAt", Instant.parse("2026-04-01T08:00:00Z").toEpochMilli());
    record.put("deadline", null);
    return record;
  }

  private static CreditRequested v2Credit() {
    return CreditRequested.newBuilder()
        .setOperationId("op-v2")
        .setAccountId("acc-1")
        .setAmount(new BigDecimal("20.00"))
        .setCurrency("EUR")
        .setRequestedAt(Instant.parse("2026-04-01T09:00:00Z"))
        .setReference("statement text")
        .build();
  }

  private static List<Object> consume(
      KafkaBroker kafka, String topic, Deserializer<Object> values, String group) {
    try (KafkaConsumer<String, Object> consumer =
        new KafkaConsumer<>(
            kafka.consumerConfig(UniqueNames.group(group)), new StringDeserializer(), values)) {
      consumer.subscribe(List.of(topic));
      return Polling.valuesUntil(consumer, 2, Duration.ofSeconds(60));
    }
  }
}
