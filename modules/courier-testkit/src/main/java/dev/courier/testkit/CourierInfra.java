package dev.courier.testkit;

import dev.courier.testkit.internal.InfraLauncher;
import dev.courier.testkit.internal.SharedInfra;
import java.util.LinkedHashMap;
import java.util.Map;

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

  /**
   * Spring Boot's own connection properties for this infrastructure and a database on it ({@code
   * spring.kafka.bootstrap-servers}, {@code spring.datasource.url}, {@code username}, {@code
   * password}), for a {@code @DynamicPropertySource}: what {@code @ServiceConnection} gives a
   * Testcontainers container, on either backend.
   */
  default Map<String, String> springProperties(TestDatabase database) {
    Map<String, String> properties = new LinkedHashMap<>();
    properties.put("spring.kafka.bootstrap-servers", kafka().bootstrapServers());
    properties.put("spring.datasource.url", database.jdbcUrl());
    properties.put("spring.datasource.username", database.username());
    properties.put("spring.datasource.password", database.password());
    return properties;
  }

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
