package dev.courier.schema;

import java.util.Map;

/**
 * The registry client a serializer or deserializer uses: shared when handed in, else created from
 * the configuration and closed with the serde.
 */
abstract class AvroSerdeSupport implements AutoCloseable {

  protected SchemaRegistryClient client;
  private boolean ownsClient;

  AvroSerdeSupport(SchemaRegistryClient client) {
    this.client = client;
  }

  /** Validates the configuration (failing with the key's name) and sets up the client. */
  KafkaAvroSerdeConfig configureSerde(Map<String, ?> configs) {
    KafkaAvroSerdeConfig config = new KafkaAvroSerdeConfig(configs);
    if (client == null) {
      client = SchemaRegistryClient.create(configs);
      ownsClient = true;
    }
    return config;
  }

  @Override
  public void close() {
    if (ownsClient && client != null) {
      client.close();
    }
  }
}
