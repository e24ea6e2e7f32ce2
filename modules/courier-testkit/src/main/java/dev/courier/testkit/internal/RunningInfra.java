package dev.courier.testkit.internal;

import dev.courier.testkit.Backend;
import dev.courier.testkit.CourierInfra;
import dev.courier.testkit.InfraSettings;
import dev.courier.testkit.KafkaBroker;
import dev.courier.testkit.PostgresServer;
import dev.courier.testkit.SchemaRegistry;
import dev.courier.testkit.SchemaRegistryProvider;
import java.util.Comparator;
import java.util.ServiceLoader;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** A started infrastructure: the broker, the database server and, on demand, a registry. */
final class RunningInfra implements CourierInfra {

  private static final Logger LOG = LoggerFactory.getLogger(RunningInfra.class);

  private final Backend backend;
  private final String reason;
  private final InfraSettings settings;
  private final ManagedKafka kafka;
  private final PostgresServer postgres;
  private SchemaRegistry registry;
  private boolean closed;

  RunningInfra(
      Backend backend,
      String reason,
      InfraSettings settings,
      ManagedKafka kafka,
      PostgresServer postgres) {
    this.backend = backend;
    this.reason = reason;
    this.settings = settings;
    this.kafka = kafka;
    this.postgres = postgres;
  }

  @Override
  public Backend backend() {
    return backend;
  }

  @Override
  public String backendReason() {
    return reason;
  }

  @Override
  public KafkaBroker kafka() {
    return kafka;
  }

  @Override
  public PostgresServer postgres() {
    return postgres;
  }

  @Override
  public synchronized SchemaRegistry schemaRegistry() {
    if (registry == null) {
      SchemaRegistryProvider provider =
          ServiceLoader.load(SchemaRegistryProvider.class).stream()
              .map(ServiceLoader.Provider::get)
              .sorted(Comparator.comparingInt(SchemaRegistryProvider::priority).reversed())
              .filter(p -> p.supports(backend, settings))
              .findFirst()
              .orElseThrow(
                  () ->
                      new IllegalStateException(
                          "no schema registry is available: no "
                              + SchemaRegistryProvider.class.getName()
                              + " on the classpath supports the "
                              + backend.id()
                              + " backend (courier-schema brings the in-process one)"));
      registry = provider.start(backend, kafka, settings);
      LOG.info("courier-testkit schema registry: {}", registry.describe());
    }
    return registry;
  }

  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    if (registry instanceof AutoCloseable closeable) {
      try {
        closeable.close();
      } catch (Exception e) {
        LOG.warn("schema registry did not stop cleanly: {}", e.toString());
      }
    }
    kafka.close();
    InfraLauncher.closePostgres(postgres);
  }
}
