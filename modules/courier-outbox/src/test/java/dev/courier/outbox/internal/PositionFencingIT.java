package dev.courier.outbox.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.courier.outbox.OutboxRelayConfig;
import dev.courier.testkit.CourierInfraTest;
import dev.courier.testkit.KafkaProcess;
import dev.courier.testkit.UniqueNames;
import io.debezium.embedded.EmbeddedWorkerConfig;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Two replicas' position stores, as their engines make them (EngineProperties), on a real broker:
 * the old leader passed its lease check and its write is held in a network partition while the new
 * leader takes over and stores a newer position. When the network heals, the old write must not
 * land after the new one, or the next start would find the slot ahead of the stored position and
 * stop on a gap that is not there.
 */
@CourierInfraTest
class PositionFencingIT {

  @Test
  void aPositionHeldUpInAPartitionDoesNotLandAfterTheNewLeadersOne() throws Exception {
    try (KafkaProcess kafka = KafkaProcess.withProxiedListener().start()) {
      String prefix = UniqueNames.topic("fencing").replace('-', '_');
      OutboxRelayConfig direct = config(kafka.bootstrapServers(), prefix);
      OutboxRelayConfig cutOff =
          config(kafka.proxiedClientSettings().get("bootstrap.servers"), prefix);
      String oldFence = FencedOffsetStore.register(() -> true);
      String newFence = FencedOffsetStore.register(() -> true);
      FencedOffsetStore old = start(cutOff, oldFence);
      FencedOffsetStore next = null;
      try {
        assertThat(set(old, direct, 100)).isNull();

        kafka.proxy().partition();
        // The old leader checked its lease just before the partition began: its write is on its
        // way, and stays there.
        CompletableFuture<Throwable> stale = new CompletableFuture<>();
        old.set(Map.of(key(direct), position(150)), (error, ignored) -> stale.complete(error));
        next = start(direct, newFence);
        assertThat(set(next, direct, 300)).isNull();
        kafka.proxy().heal();

        Throwable oldWrite = stale.get(90, TimeUnit.SECONDS);
        assertThat(oldWrite).as("the old leader's held-up write is refused").isNotNull();
        assertThat(StoredPosition.read(direct)).contains(StoredPosition.Position.at(300));
        // The new leader goes on storing.
        assertThat(set(next, direct, 400)).isNull();
        assertThat(StoredPosition.read(direct)).contains(StoredPosition.Position.at(400));
      } finally {
        old.stop();
        if (next != null) {
          next.stop();
        }
        FencedOffsetStore.unregister(oldFence);
        FencedOffsetStore.unregister(newFence);
      }
    }
  }

  private static OutboxRelayConfig config(String bootstrap, String prefix) {
    return new OutboxRelayConfig(
        OutboxRelayConfig.settings(
            bootstrap, "jdbc:postgresql://localhost:5432/unused", "u", "p", prefix));
  }

  /** The store an engine of the relay opens, from the relay's engine properties. */
  private static FencedOffsetStore start(OutboxRelayConfig config, String fence) {
    Properties engine = EngineProperties.of(config, fence);
    Map<String, String> properties = new HashMap<>();
    engine.stringPropertyNames().forEach(k -> properties.put(k, engine.getProperty(k)));
    FencedOffsetStore store = new FencedOffsetStore();
    store.configure(new EmbeddedWorkerConfig(properties));
    store.start();
    return store;
  }

  private static Throwable set(FencedOffsetStore store, OutboxRelayConfig config, long lsn)
      throws Exception {
    CompletableFuture<Throwable> done = new CompletableFuture<>();
    store.set(Map.of(key(config), position(lsn)), (error, ignored) -> done.complete(error));
    return done.get(60, TimeUnit.SECONDS);
  }

  /** Kafka Connect's offset key of the relay's engine, as its JsonConverter writes it. */
  private static ByteBuffer key(OutboxRelayConfig config) {
    return bytes(
        "[\""
            + config.getString(OutboxRelayConfig.RELAY_NAME)
            + "\",{\"server\":\""
            + config.cdcPrefix()
            + "\"}]");
  }

  /** Debezium PostgreSQL's offset value. */
  private static ByteBuffer position(long lsn) {
    return bytes("{\"lsn_proc\":" + lsn + ",\"lsn_commit\":" + lsn + ",\"lsn\":" + lsn + "}");
  }

  private static ByteBuffer bytes(String s) {
    return ByteBuffer.wrap(s.getBytes(StandardCharsets.UTF_8));
  }
}
