package dev.courier.testkit;

/** A running Confluent-compatible schema registry. */
public interface SchemaRegistry {

  /** The {@code schema.registry.url} value clients use. */
  String url();

  /** Human-readable description: which registry runs and where. */
  String describe();
}
