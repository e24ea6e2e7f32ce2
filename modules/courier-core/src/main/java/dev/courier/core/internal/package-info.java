/**
 * Helpers Courier's modules share (the consumer loop's life cycle, Kafka futures, SQL migrations,
 * the services' HTTP endpoints, JSON, failure descriptions). Not API: they change without notice.
 */
package dev.courier.core.internal;
