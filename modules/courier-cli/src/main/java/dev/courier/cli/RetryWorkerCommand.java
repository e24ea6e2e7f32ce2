package dev.courier.cli;

import dev.courier.core.ClientSettings;
import dev.courier.core.ServiceHealth;
import dev.courier.retry.FailureClassifier;
import dev.courier.retry.RecordHandler;
import dev.courier.retry.RetryConfig;
import dev.courier.retry.RetryingConsumer;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.net.http.HttpTimeoutException;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Range;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

@Command(
    name = "retry-worker",
    mixinStandardHelpOptions = true,
    description = {
      "Runs the retry ladder for retry.topic: the main topic, its delay tiers and its DLT, one"
          + " consumer group. Each record goes to the handler (retry.worker.handler.class; by"
          + " default an HTTP POST to retry.worker.target.url); failures climb the tiers or park"
          + " in the DLT as RetryConfig says.",
      "Serves /health and /metrics on retry.worker.http.port; stops cleanly on SIGTERM.",
      "Settings: RetryConfig's keys (bootstrap.servers, group.id, retry.*) and retry.worker.*."
    })
final class RetryWorkerCommand implements Callable<Integer> {

  private static final Logger LOG = LoggerFactory.getLogger(RetryWorkerCommand.class);

  static final String HTTP_PORT = "retry.worker.http.port";
  static final String HANDLER = "retry.worker.handler.class";

  static final ConfigDef DEFINITION =
      new ConfigDef(RetryConfig.configDef())
          .define(
              HTTP_PORT,
              Type.INT,
              9466,
              Range.between(0, 65535),
              Importance.MEDIUM,
              "Port of /health and /metrics (0 picks a free port).")
          .define(
              HANDLER,
              Type.CLASS,
              HttpRecordHandler.class,
              Importance.HIGH,
              "The work for each record: a class implementing"
                  + " dev.courier.retry.RecordHandler<byte[], byte[]> with a public no-argument"
                  + " constructor, configured with these settings when it implements Kafka's"
                  + " Configurable. Put its jar on the classpath (/opt/courier/plugins in the"
                  + " image).")
          .define(
              HttpRecordHandler.TARGET_URL,
              Type.STRING,
              null,
              Importance.HIGH,
              "Where the default handler POSTs each record (its value as the body).")
          .define(
              HttpRecordHandler.TIMEOUT_MS,
              Type.LONG,
              10_000L,
              Range.atLeast(1),
              Importance.MEDIUM,
              "Request timeout of the default handler; a timeout is a transient failure.");

  @Mixin SettingsOptions options;

  /** The worker's classification: the HTTP handler's unavailability is transient. */
  static FailureClassifier classifier(RetryConfig config) {
    return config
        .classifier()
        .transientFailure(HttpRecordHandler.Unavailable.class)
        .transientFailure(HttpTimeoutException.class)
        .build();
  }

  /**
   * Waiting for Kafka until the loop runs; then the loop's state: unready with the reason while it
   * cannot do its work (Kafka unreachable), as the relay and the monitor are.
   */
  private static ServiceHealth health(
      ServiceHealth starting, Thread loop, RetryingConsumer<?, ?> consumer, Throwable failure) {
    if (failure != null) {
      return ServiceHealth.failed("the loop stopped: " + failure, starting.since());
    }
    if (loop == null) {
      return starting;
    }
    if (!loop.isAlive()) {
      return ServiceHealth.waiting("STOPPING", "stopping", starting.since());
    }
    return consumer
        .problem()
        .map(why -> ServiceHealth.waiting("WAITING", why, starting.since()))
        .orElseGet(() -> ServiceHealth.up("RUNNING", "consuming", starting.since()));
  }

  @Override
  @SuppressWarnings("unchecked")
  public Integer call() throws Exception {
    Map<String, String> settings =
        options.resolve(
            DEFINITION, List.of(ClientSettings.PREFIX), RetryConfig.renamedKeys(), System.err);
    AbstractConfig service = new AbstractConfig(DEFINITION, settings, false);
    RecordHandler<byte[], byte[]> handler =
        service.getConfiguredInstance(HANDLER, RecordHandler.class);
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    new JvmMemoryMetrics().bindTo(registry);
    RetryConfig config = new RetryConfig(settings);
    AtomicReference<ServiceHealth> starting =
        new AtomicReference<>(ServiceHealth.waiting("STARTING", "starting", Instant.now()));
    AtomicReference<Thread> running = new AtomicReference<>();
    AtomicReference<RetryingConsumer<byte[], byte[]>> worker = new AtomicReference<>();
    AtomicReference<Throwable> failure = new AtomicReference<>();
    ServiceHttp http =
        ServiceHttp.start(
            HTTP_PORT,
            service.getInt(HTTP_PORT),
            registry,
            () -> health(starting.get(), running.get(), worker.get(), failure.get()));
    System.out.println("courier retry-worker: serving /health and /metrics on port " + http.port());
    RetryingConsumer<byte[], byte[]> consumer;
    try {
      AwaitKafka.await(config.clients(), starting);
      RetryingConsumer.Builder<byte[], byte[]> built =
          RetryingConsumer.builder(
                  settings, new ByteArrayDeserializer(), new ByteArrayDeserializer())
              .handler(handler)
              .classifier(classifier(config))
              .meterRegistry(registry);
      ServiceTracing.global().ifPresent(built::openTelemetry);
      consumer = built.build();
      // The ladder's topics are made here, so a principal that may not create them exits 2.
      consumer.start();
    } catch (RuntimeException e) {
      http.close();
      throw e;
    }
    Thread loop =
        new Thread(
            () -> {
              try {
                consumer.run();
              } catch (Throwable e) {
                // Anything escaping the loop (a handler's Error included) ends the service:
                // exit 1 with the cause and its stack, never a process that stays up DOWN.
                LOG.error("the retry worker's loop stopped", e);
                failure.set(e);
              }
            },
            "courier-retry-worker");
    worker.set(consumer);
    running.set(loop);
    loop.start();
    return ServiceLifecycle.runUntilStopped(
        "retry-worker",
        () -> {
          consumer.close();
          // The loop gives the call in flight retry.shutdown.timeout.ms, then commits and leaves.
          loop.join(config.shutdownTimeout().plusSeconds(15).toMillis());
          http.close();
        },
        () -> Optional.ofNullable(failure.get()),
        System.out);
  }
}
