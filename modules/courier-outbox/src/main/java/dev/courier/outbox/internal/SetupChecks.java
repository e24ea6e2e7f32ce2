package dev.courier.outbox.internal;

import dev.courier.outbox.OutboxRelayConfig;
import dev.courier.outbox.OutboxSchema;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * The settings, PostgreSQL and Kafka as the relay needs them, checked side by side before every
 * start: a restart pays for the slower of the two, not for both. An outage is an {@link Outage}; a
 * wrong setting a {@code ConfigException} naming its key.
 */
public final class SetupChecks implements AutoCloseable {

  private final OutboxRelayConfig config;
  private final PostgresAccess postgres;
  private final RelayState state;
  private final ExecutorService kafkaChecks =
      Executors.newSingleThreadExecutor(
          r -> {
            Thread t = new Thread(r, "courier-outbox-checks");
            t.setDaemon(true);
            return t;
          });

  public SetupChecks(OutboxRelayConfig config, PostgresAccess postgres, RelayState state) {
    this.config = config;
    this.postgres = postgres;
    this.state = state;
  }

  public void verify(StartPhases start) throws Outage {
    checking("checking PostgreSQL at " + postgres.where());
    CompletableFuture<Void> kafka =
        CompletableFuture.runAsync(
            () -> {
              try {
                KafkaChecks.verify(config);
              } catch (Outage e) {
                throw new CompletionException(e);
              }
            },
            kafkaChecks);
    try {
      StartupChecks.verify(config, postgres);
      OutboxSchema.migrate(postgres.dataSource(), config.shards());
    } catch (Outage | RuntimeException e) {
      kafka.cancel(true);
      throw e;
    }
    // PostgreSQL passed: an outage of it being waited out is over, so its reason goes.
    String kafkaAt = "Kafka at " + config.clients().bootstrapServersValue();
    if (!state.current().reason().startsWith(kafkaAt)) {
      state.waiting("STARTING", "checking " + kafkaAt);
    }
    try {
      kafka.join();
    } catch (CompletionException e) {
      if (e.getCause() instanceof Outage outage) {
        throw outage;
      }
      if (e.getCause() instanceof RuntimeException r) {
        throw r;
      }
      throw e;
    }
    start.mark("checks");
  }

  /**
   * Says what is being checked, unless an outage is being waited out: its reason stays. A check is
   * a step of every start, so it is STARTING (logged at INFO), not WAITING (a WARN: an outage).
   */
  private void checking(String what) {
    if (!state.current().status().equals("WAITING")) {
      state.waiting("STARTING", what);
    }
  }

  @Override
  public void close() {
    kafkaChecks.shutdownNow();
  }
}
