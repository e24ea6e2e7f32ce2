package dev.courier.cli;

import dev.courier.core.ClientSettings;
import dev.courier.core.ServiceHealth;
import dev.courier.core.internal.BootstrapNames;
import dev.courier.core.internal.KafkaReachability;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.apache.kafka.common.config.ConfigException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A service's start while Kafka may be away: it waits (capped backoff) with the reason on /health
 * and in the log once, and goes on when Kafka answers. Refused credentials end the start.
 */
final class AwaitKafka {

  private static final Logger LOG = LoggerFactory.getLogger(AwaitKafka.class);
  private static final Duration CHECK = Duration.ofSeconds(10);
  private static final Duration MAX_BACKOFF = Duration.ofSeconds(30);

  private AwaitKafka() {}

  /**
   * @param health where the service's health is published while it waits
   * @throws ConfigException when Kafka refuses the credentials
   */
  static void await(ClientSettings clients, AtomicReference<ServiceHealth> health) {
    await(
        () -> KafkaReachability.check(clients, CHECK),
        "Kafka at " + clients.bootstrapServersValue() + " answers",
        outage -> {
          LOG.warn("waiting for Kafka: {}", outage);
          health.set(ServiceHealth.waiting("WAITING", outage, Instant.now()));
        });
  }

  /**
   * Until a name in {@code bootstrap.servers} resolves, for a service that says why on its own
   * /health and in its own log meanwhile.
   */
  static void awaitNames(ClientSettings clients) {
    await(() -> BootstrapNames.unresolved(clients), null, outage -> {});
  }

  private static void await(Supplier<Optional<String>> check, String fine, Consumer<String> say) {
    Duration backoff = Duration.ofMillis(250);
    String said = null;
    while (true) {
      Optional<String> outage = check.get();
      if (outage.isEmpty()) {
        if (said != null && fine != null) {
          LOG.info("{}", fine);
        }
        return;
      }
      if (!outage.get().equals(said)) {
        said = outage.get();
        say.accept(said);
      }
      // Waiting for Kafka to come back is the point; the backoff keeps the retries cheap.
      LockSupport.parkNanos(backoff.toNanos());
      backoff =
          backoff.multipliedBy(2).compareTo(MAX_BACKOFF) > 0
              ? MAX_BACKOFF
              : backoff.multipliedBy(2);
    }
  }
}
