package dev.courier.testkit.internal;

import dev.courier.testkit.Backend;
import dev.courier.testkit.CourierInfra;
import dev.courier.testkit.InfraSettings;
import dev.courier.testkit.PostgresServer;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Chooses the backend and starts Kafka and PostgreSQL side by side. */
public final class InfraLauncher {

  private static final Logger LOG = LoggerFactory.getLogger(InfraLauncher.class);

  private InfraLauncher() {}

  public static CourierInfra launch(InfraSettings settings) {
    return launch(settings, new DockerProbe());
  }

  static CourierInfra launch(InfraSettings settings, DockerProbe docker) {
    BackendSelection selection = BackendSelection.decide(settings, docker);
    LOG.info("courier-testkit backend: {} ({})", selection.backend().id(), selection.reason());
    long started = System.nanoTime();
    boolean embedded = selection.backend() == Backend.EMBEDDED;
    // Both start in about the same time, so starting them together halves the wait.
    boolean external = selection.backend() == Backend.EXTERNAL;
    Supplier<ManagedKafka> kafkaStart =
        external
            ? ExternalInfra::kafka
            : embedded ? EmbeddedKafkaBroker::start : () -> ContainerKafkaBroker.start(settings);
    CompletableFuture<ManagedKafka> kafka = CompletableFuture.supplyAsync(kafkaStart);
    Supplier<PostgresServer> postgresStart =
        external
            ? ExternalInfra::postgres
            : embedded
                ? () -> EmbeddedPostgresServer.start(settings.postgresPort())
                : () -> ContainerPostgresServer.start(settings);
    CompletableFuture<PostgresServer> postgres = CompletableFuture.supplyAsync(postgresStart);
    try {
      CompletableFuture.allOf(kafka, postgres).join();
    } catch (CompletionException e) {
      kafka.thenAccept(ManagedKafka::close);
      postgres.thenAccept(InfraLauncher::closePostgres);
      throw e.getCause() instanceof RuntimeException r ? r : e;
    }
    RunningInfra infra =
        new RunningInfra(
            selection.backend(), selection.reason(), settings, kafka.join(), postgres.join());
    LOG.info(
        "courier-testkit ready in {} ms: {}",
        (System.nanoTime() - started) / 1_000_000,
        infra.describe());
    return infra;
  }

  static void closePostgres(PostgresServer postgres) {
    if (postgres instanceof AutoCloseable closeable) {
      try {
        closeable.close();
      } catch (Exception e) {
        LOG.warn("PostgreSQL did not stop cleanly: {}", e.toString());
      }
    }
  }
}
