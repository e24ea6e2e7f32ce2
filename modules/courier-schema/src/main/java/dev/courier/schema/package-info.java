/**
 * Avro with a Confluent-compatible schema registry client and wire format.
 *
 * <p>Key types: {@link dev.courier.schema.SchemaRegistryClient}, {@link
 * dev.courier.schema.KafkaAvroSerializer}, {@link dev.courier.schema.KafkaAvroDeserializer}, {@link
 * dev.courier.schema.KafkaAvroSerdeConfig}, {@link dev.courier.schema.SchemaRegistryException},
 * {@link dev.courier.schema.SchemaCompatibilityChecker}.
 */
package dev.courier.schema;
