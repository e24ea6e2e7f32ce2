package dev.courier.core.internal;

import dev.courier.core.ClientSettings;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.errors.AuthenticationException;

/**
 * Whether Kafka answers a service with its settings: not answering is an outage (wait, say why on
 * /health); refusing the credentials is a wrong setting (exit 2, naming the key).
 */
public final class KafkaReachability {

  private KafkaReachability() {}

  /**
   * @return empty when the cluster answered; otherwise why it did not, in words
   * @throws ConfigException when Kafka refused the credentials
   */
  public static Optional<String> check(ClientSettings clients, Duration timeout) {
    Optional<String> unresolved = BootstrapNames.unresolved(clients);
    if (unresolved.isPresent()) {
      return unresolved; // the admin client could not even be built
    }
    Map<String, Object> settings = clients.admin();
    settings.putIfAbsent("request.timeout.ms", (int) timeout.toMillis());
    settings.putIfAbsent("default.api.timeout.ms", (int) timeout.toMillis());
    try (Admin admin = Admin.create(settings)) {
      admin.describeCluster().clusterId().get(timeout.toMillis(), TimeUnit.MILLISECONDS);
      return Optional.empty();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return Optional.of("interrupted while asking Kafka");
    } catch (TimeoutException e) {
      return Optional.of(
          "Kafka at " + clients.bootstrapServersValue() + " does not answer within " + timeout);
    } catch (ExecutionException e) {
      if (e.getCause() instanceof AuthenticationException auth) {
        throw refused(clients, auth);
      }
      return Optional.of(
          "Kafka at "
              + clients.bootstrapServersValue()
              + " is not available: "
              + Failures.describe(e.getCause()));
    }
  }

  /** Refused credentials as the setting that holds them. */
  public static ConfigException refused(ClientSettings clients, AuthenticationException e) {
    return new ConfigException(
        ClientSettings.PREFIX + "sasl.jaas.config",
        "[hidden]",
        "Kafka at "
            + clients.bootstrapServersValue()
            + " refused the credentials ("
            + e.getClass().getSimpleName()
            + ": "
            + e.getMessage()
            + ")");
  }
}
