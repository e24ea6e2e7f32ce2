/** Kafka offset reads and writes behind the resetter ({@code KafkaOffsets}). Not API. */
package dev.courier.replay.internal;
