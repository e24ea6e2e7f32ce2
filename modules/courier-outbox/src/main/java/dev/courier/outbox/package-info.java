/**
 * The CDC outbox: the business change and an outbox row in one PostgreSQL transaction, and a relay
 * that tails the outbox with Debezium's embedded engine and publishes to Kafka, keeping each
 * event's id.
 *
 * <p>Key types: {@link dev.courier.outbox.OutboxWriter}, {@link dev.courier.outbox.OutboxEvent},
 * {@link dev.courier.outbox.OutboxRelay}, {@link dev.courier.outbox.OutboxRelayConfig}, {@link
 * dev.courier.outbox.OutboxSchema}.
 */
package dev.courier.outbox;
