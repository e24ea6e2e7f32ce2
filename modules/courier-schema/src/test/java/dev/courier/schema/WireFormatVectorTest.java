package dev.courier.schema;

import static org.assertj.core.api.Assertions.assertThat;

import dev.courier.schema.credit.CreditRequested;
import dev.courier.schema.registry.LocalSchemaRegistry;
import java.math.BigDecimal;
import java.time.Instant;
import java.util.HexFormat;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Byte-level vectors: the exact bytes of a fixed record under a fixed schema id, worked out by hand
 * from the Avro specification and Confluent's wire format, so any Confluent client can decode them.
 */
class WireFormatVectorTest {

  /**
   * 00 magic | 0000002a schema id 42 | 08 "op-1" | 0a "acc-7" | 04 04e2 decimal 12.50 (unscaled
   * 1250) | 06 "EUR" | 80a0d5edee66 2026-01-01T00:00Z in ms | 02 809088c0ef66 deadline (union
   * branch 1) 2026-01-02T00:00Z | 02 14 "invoice 42" reference (union branch 1).
   */
  static final String VECTOR =
      "000000002a086f702d310a6163632d370404e20645555280a0d5edee6602809088c0ef660214696e766f6963"
          + "65203432";

  private LocalSchemaRegistry registry;

  @BeforeEach
  void startRegistry() {
    registry = LocalSchemaRegistry.start();
  }

  @AfterEach
  void stopRegistry() {
    registry.close();
  }

  static CreditRequested fixedCredit() {
    return CreditRequested.newBuilder()
        .setOperationId("op-1")
        .setAccountId("acc-7")
        .setAmount(new BigDecimal("12.50"))
        .setCurrency("EUR")
        .setRequestedAt(Instant.parse("2026-01-01T00:00:00Z"))
        .setDeadline(Instant.parse("2026-01-02T00:00:00Z"))
        .setReference("invoice 42")
        .build();
  }

  @Test
  void serializerWritesTheVectorAndDeserializerReadsItBack() {
    // Register 41 throw-away schemas first so the credit schema gets id 42, as in the vector.
    try (SchemaRegistryClient client = SchemaRegistryClient.create(config())) {
      for (int i = 1; i <= 41; i++) {
        client.register(
            "filler-" + i, org.apache.avro.SchemaBuilder.record("Filler" + i).fields().endRecord());
      }
      KafkaAvroSerializer serializer = new KafkaAvroSerializer(client);
      serializer.configure(config(), false);

      byte[] bytes = serializer.serialize("credits", fixedCredit());

      assertThat(HexFormat.of().formatHex(bytes)).isEqualTo(VECTOR);

      KafkaAvroDeserializer deserializer = new KafkaAvroDeserializer(client);
      deserializer.configure(
          Map.of("schema.registry.url", registry.url(), "specific.avro.reader", true), false);
      assertThat(deserializer.deserialize("credits", HexFormat.of().parseHex(VECTOR)))
          .isEqualTo(fixedCredit());
    }
  }

  private Map<String, Object> config() {
    return Map.of("schema.registry.url", registry.url());
  }
}
