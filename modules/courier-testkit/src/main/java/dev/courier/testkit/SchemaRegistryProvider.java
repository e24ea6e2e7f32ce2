package dev.courier.testkit;

/**
 * Starts a schema registry for a running infrastructure. Found with {@link
 * java.util.ServiceLoader}; of those that {@link #supports} the backend, the highest {@link
 * #priority()} wins.
 */
public interface SchemaRegistryProvider {

  /** Higher wins when several providers are on the classpath. */
  default int priority() {
    return 0;
  }

  /** Whether this provider can serve the backend; asked before {@link #start}. */
  default boolean supports(Backend backend, InfraSettings settings) {
    return true;
  }

  /**
   * Starts a registry; the returned handle is closed with the infrastructure when it is also {@link
   * AutoCloseable}.
   */
  SchemaRegistry start(Backend backend, KafkaBroker kafka, InfraSettings settings);
}
