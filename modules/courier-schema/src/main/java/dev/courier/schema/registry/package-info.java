/**
 * An in-memory schema registry speaking Confluent's REST API ({@link
 * dev.courier.schema.registry.LocalSchemaRegistry}), for tests and the lab.
 */
package dev.courier.schema.registry;
