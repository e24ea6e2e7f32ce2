package dev.courier.testkit;

import dev.courier.testkit.internal.InfraLauncher;
import dev.courier.testkit.internal.SharedInfra;

/**
 * Real Kafka, PostgreSQL and schema registry for tests, from one of two backends behind this
 * interface ({@link Backend}). Use {@link #shared()} in tests (started once per JVM, stopped at
 * exit) or {@link #start(InfraSettings)} for a private instance you close yourself.
 */
public interface CourierInfra extends AutoCloseable {

  /**
   * The JVM-wide instance, started on first use from {@link InfraSettings#fromEnvironment()} and
   * stopped by a shutdown hook. Tests isolate by unique topic, group, database and slot names.
   */
  static CourierInfra shared() {
    return SharedInfra.get();
  }

  /** Starts a private instance; the caller closes it. */
  static CourierInfra start(InfraSettings settings) {
    return InfraLauncher.launch(settings);
  }

  /** The backend that runs. */
  Backend backend();

  /** Why that backend was chosen, in words (e.g. "requested by courier.infra=embedded"). */
  String backendReason();

  KafkaBroker kafka();

  PostgresServer postgres();

  /**
   * A Confluent-compatible schema registry, started on first use by the {@link
   * SchemaRegistryProvider} found on the classpath.
   *
   * @throws IllegalStateException when no provider is on the classpath
   */
  SchemaRegistry schemaRegistry();

  /** One line per component, for logs and reports. */
  default String describe() {
    return "backend="
        + backend().id()
        + " ("
        + backendReason()
        + "); kafka: "
        + kafka().describe()
        + "; postgres: "
        + postgres().describe();
  }

  @Override
  void close();
}
