package dev.courier.testkit;

/**
 * Starts a schema registry for a running infrastructure. Found with {@link
 * java.util.ServiceLoader}; when several are present, the highest {@link #priority()} wins.
 */
public interface SchemaRegistryProvider {

  /** Higher wins when several providers are on the classpath. */
  default int priority() {
    return 0;
  }

  /**
   * Starts a registry; the returned handle is closed with the infrastructure when it is also {@link
   * AutoCloseable}.
   */
  SchemaRegistry start(Backend backend, KafkaBroker kafka, InfraSettings settings);
}
