package dev.courier.schema;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.courier.schema.credit.CreditRequested;
import dev.courier.schema.internal.JavaProperties;
import dev.courier.schema.registry.LocalSchemaRegistry;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.Map;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;
import org.apache.kafka.common.errors.SerializationException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The serializer's ways to a schema id: auto-register, lookup only, latest version. */
class KafkaAvroSerializerTest {

  private LocalSchemaRegistry registry;
  private SchemaRegistryClient client;
  private Schema v1;
  private Schema v2;

  @BeforeEach
  void setUp() {
    registry = LocalSchemaRegistry.start();
    client = SchemaRegistryClient.create(Map.of("schema.registry.url", registry.url()));
    SchemaCatalog.Subject credit =
        SchemaCatalog.load(Path.of(System.getProperty("courier.schemas.dir", "../../schemas")))
            .subjects()
            .stream()
            .filter(s -> s.name().equals("dev.courier.schema.credit.CreditRequested"))
            .findFirst()
            .orElseThrow();
    v1 = credit.versions().get(0);
    v2 = credit.versions().get(1);
  }

  @AfterEach
  void tearDown() {
    client.close();
    registry.close();
  }

  @Test
  void withoutAutoRegisterAnUnknownSchemaIsRefusedNamingTheSubject() {
    KafkaAvroSerializer serializer = serializer(Map.of("auto.register.schemas", false));
    assertThatThrownBy(() -> serializer.serialize("credits", WireFormatVectorTest.fixedCredit()))
        .isInstanceOf(SerializationException.class)
        .hasMessageContaining("subject credits-value (topic credits, value)")
        .hasRootCauseInstanceOf(SchemaRegistryException.SubjectNotFoundException.class);

    int id =
        client.register("credits-value", JavaProperties.strip(CreditRequested.getClassSchema()));
    KafkaAvroSerializer lookup =
        serializer(Map.of("auto.register.schemas", false, "avro.remove.java.properties", true));
    byte[] bytes = lookup.serialize("credits", WireFormatVectorTest.fixedCredit());
    assertThat(ByteBuffer.wrap(bytes, 1, 4).getInt()).isEqualTo(id);
  }

  @Test
  void theRememberedHeaderFollowsTheTopicAndTheSchema() {
    client.register("padding-value", v1); // so the two subjects get different ids
    KafkaAvroSerializer serializer = serializer(Map.of());
    CreditRequested credit = WireFormatVectorTest.fixedCredit();
    int first = ByteBuffer.wrap(serializer.serialize("credits", credit), 1, 4).getInt();
    assertThat(ByteBuffer.wrap(serializer.serialize("credits", credit), 1, 4).getInt())
        .isEqualTo(first);
    int other = ByteBuffer.wrap(serializer.serialize("payments", credit), 1, 4).getInt();
    assertThat(client.lookup("payments-value", credit.getSchema()).id()).isEqualTo(other);
    GenericRecord older = new GenericData.Record(v1);
    older.put("operationId", "op-old");
    older.put("accountId", "acc-1");
    older.put("amount", ByteBuffer.wrap(new byte[] {0x03, (byte) 0xe8}));
    older.put("currency", "EUR");
    older.put("requestedAt", 0L);
    older.put("deadline", null);
    int olderId = ByteBuffer.wrap(serializer.serialize("payments", older), 1, 4).getInt();
    assertThat(olderId).isEqualTo(client.lookup("payments-value", v1).id());
    assertThat(ByteBuffer.wrap(serializer.serialize("credits", credit), 1, 4).getInt())
        .isEqualTo(first);
  }

  @Test
  void useLatestVersionWritesAnOlderRecordAsTheLatestSchema() {
    client.register("credits-value", v1);
    int latestId = client.register("credits-value", v2);
    KafkaAvroSerializer serializer =
        serializer(Map.of("auto.register.schemas", false, "use.latest.version", true));

    GenericRecord old = new GenericData.Record(v1);
    old.put("operationId", "op-old");
    old.put("accountId", "acc-1");
    old.put("amount", ByteBuffer.wrap(new byte[] {0x03, (byte) 0xe8})); // 10.00
    old.put("currency", "EUR");
    old.put("requestedAt", 0L);
    old.put("deadline", null);
    byte[] bytes = serializer.serialize("credits", old);

    assertThat(ByteBuffer.wrap(bytes, 1, 4).getInt()).isEqualTo(latestId);
    KafkaAvroDeserializer deserializer = new KafkaAvroDeserializer(client);
    deserializer.configure(
        Map.of("schema.registry.url", registry.url(), "specific.avro.reader", true), false);
    CreditRequested read = (CreditRequested) deserializer.deserialize("credits", bytes);
    assertThat(read.getOperationId()).isEqualTo("op-old");
    assertThat(read.getAmount()).isEqualByComparingTo("10.00");
    assertThat(read.getReference()).isNull();
  }

  @Test
  void nonAvroValuesAreRefused() {
    assertThatThrownBy(() -> serializer(Map.of()).serialize("credits", "plain text"))
        .isInstanceOf(SerializationException.class)
        .hasMessageContaining("got java.lang.String");
    assertThat(serializer(Map.of()).serialize("credits", null)).isNull();
  }

  private KafkaAvroSerializer serializer(Map<String, Object> extra) {
    Map<String, Object> config = new java.util.HashMap<>(extra);
    config.put("schema.registry.url", registry.url());
    KafkaAvroSerializer serializer = new KafkaAvroSerializer(client);
    serializer.configure(config, false);
    return serializer;
  }
}
