/**
 * Reference consumers used by the lab and the tests (billing through the idempotent consumer,
 * analytics on Kafka Streams); not part of the library's API.
 */
package dev.courier.examples.orders;
