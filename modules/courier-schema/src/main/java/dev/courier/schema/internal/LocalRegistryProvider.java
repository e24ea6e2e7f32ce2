package dev.courier.schema.internal;

import dev.courier.schema.registry.LocalSchemaRegistry;
import dev.courier.testkit.Backend;
import dev.courier.testkit.InfraSettings;
import dev.courier.testkit.KafkaBroker;
import dev.courier.testkit.SchemaRegistry;
import dev.courier.testkit.SchemaRegistryProvider;

/**
 * Plugs the in-memory registry into the testkit: found by {@link java.util.ServiceLoader} where
 * both modules are on the classpath, and used unless a higher-priority provider (the registry
 * container) applies.
 */
public final class LocalRegistryProvider implements SchemaRegistryProvider {

  @Override
  public boolean supports(Backend backend, InfraSettings settings) {
    return true;
  }

  @Override
  public SchemaRegistry start(Backend backend, KafkaBroker kafka, InfraSettings settings) {
    return new Running(LocalSchemaRegistry.start());
  }

  private record Running(LocalSchemaRegistry registry) implements SchemaRegistry, AutoCloseable {
    @Override
    public String url() {
      return registry.url();
    }

    @Override
    public String describe() {
      return "in-process Confluent-compatible registry (Courier LocalSchemaRegistry, in memory) at "
          + registry.url();
    }

    @Override
    public void close() {
      registry.close();
    }
  }
}
