package dev.courier.testkit.internal;

import dev.courier.testkit.KafkaBroker;
import java.time.Duration;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;

/** A broker this testkit started and must stop, with the Admin client it lends to tests. */
abstract class ManagedKafka implements KafkaBroker, AutoCloseable {

  private Admin admin;

  @Override
  public synchronized Admin admin() {
    if (admin == null) {
      admin =
          Admin.create(
              Map.of(
                  AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG,
                  bootstrapServers(),
                  AdminClientConfig.CLIENT_ID_CONFIG,
                  "courier-testkit-admin"));
    }
    return admin;
  }

  @Override
  public final void close() {
    synchronized (this) {
      if (admin != null) {
        admin.close(Duration.ofSeconds(5));
        admin = null;
      }
    }
    stop();
  }

  /** Stops the broker itself. */
  protected abstract void stop();
}
