package dev.courier.outbox.internal;

import io.debezium.embedded.KafkaConnectUtil;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.function.Function;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.connect.runtime.WorkerConfig;
import org.apache.kafka.connect.source.SourceTask;
import org.apache.kafka.connect.storage.KafkaOffsetBackingStore;
import org.apache.kafka.connect.storage.OffsetBackingStore;
import org.apache.kafka.connect.util.Callback;
import org.apache.kafka.connect.util.SharedTopicAdmin;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Debezium's Kafka offset store that stores a position only while its relay leads. A leader that
 * lost its lease (frozen, then woken) would otherwise flush the positions it had before the
 * takeover when its engine stops, over the newer ones of the new leader: the next start would find
 * the slot ahead of the stored position and refuse it as a gap. A refused flush keeps its positions
 * for the next one, so an outage only delays them.
 *
 * <p>The lease is checked before the write, and a write may still be on its way when the lease
 * goes: with {@link #TRANSACTIONAL_ID} set, positions are written in Kafka transactions ({@link
 * PositionWriter}) that the next leader's first write fences, so a late one never lands, each with
 * the server it was read from ({@link ServerIdentity}).
 *
 * <p>Every start of an engine's task reads its position here, Debezium's restarts of it inside a
 * running engine included (after PostgreSQL was lost, say): {@link Fence#starting} checks the slot
 * and the server then, before the task connects, so a restart never follows a slot the relay's own
 * start would have refused.
 */
public final class FencedOffsetStore implements OffsetBackingStore {

  /** The engine property naming the fence (the relay's leadership) in {@link #register}. */
  public static final String FENCE = "courier.offset.fence";

  /** The engine property naming the transactional id the relay's replicas store positions under. */
  public static final String TRANSACTIONAL_ID = "courier.offset.transactional.id";

  private static final Logger LOG = LoggerFactory.getLogger(FencedOffsetStore.class);
  private static final Map<String, Fence> FENCES = new ConcurrentHashMap<>();

  /** A fence whose relay has let go: nothing is stored. */
  private static final Fence LET_GO = () -> false;

  /** What the engines of one relay ask of it through their offset store. */
  @FunctionalInterface
  public interface Fence {
    /** Whether the relay leads: only then is a position stored. */
    boolean leads();

    /** The server positions are read from now, stored with each one; empty when not known. */
    default Optional<ServerIdentity> server() {
      return Optional.empty();
    }

    /**
     * An engine's task is about to start from {@code stored}: throws to stop it (the relay's start
     * then decides, naming why).
     */
    default void starting(Optional<StoredPosition.Position> stored) {}
  }

  private static final Duration ADMIN_CLOSE = Duration.ofSeconds(5);

  private static final StackWalker STACK =
      StackWalker.getInstance(StackWalker.Option.RETAIN_CLASS_REFERENCE);

  private final Function<Map<String, String>, OffsetBackingStore> stores;
  private OffsetBackingStore delegate;
  private String fenceId;

  /**
   * Writes the positions of a fenced engine with a transactional id; null: the Kafka store does.
   */
  private PositionWriter writer;

  /** The admin client the Kafka store creates its topic with, closed with the store. */
  private SharedTopicAdmin admin;

  /**
   * The positions this store read at the task's start and those Kafka has since acknowledged (null
   * values: none stored): what a read of Kafka would answer while this relay leads.
   */
  private final Map<ByteBuffer, ByteBuffer> known = new HashMap<>();

  /** Debezium makes it by its no-argument constructor; the fence comes from the properties. */
  public FencedOffsetStore() {
    this.stores = this::kafkaStore;
  }

  FencedOffsetStore(Function<Map<String, String>, OffsetBackingStore> stores) {
    this.stores = stores;
  }

  /** Registers a fence for the engines of one relay; the id goes into {@link #FENCE}. */
  public static String register(Fence fence) {
    String id = UUID.randomUUID().toString();
    FENCES.put(id, fence);
    return id;
  }

  /** Unfenced without an id; an id whose relay has let go (unregistered) stores nothing. */
  private Fence fence() {
    return fenceId == null ? () -> true : FENCES.getOrDefault(fenceId, LET_GO);
  }

  /** Once the relay has let go of its leadership: engines still closing store nothing more. */
  public static void unregister(String id) {
    FENCES.remove(id);
  }

  @Override
  public void configure(WorkerConfig config) {
    Map<String, String> properties = config.originalsStrings();
    fenceId = properties.get(FENCE);
    delegate = stores.apply(properties);
    delegate.configure(config);
    String transactionalId = properties.get(TRANSACTIONAL_ID);
    if (fenceId != null && transactionalId != null) {
      writer =
          new PositionWriter(
              properties,
              properties.get("offset.storage.topic"),
              transactionalId,
              () -> fence().leads(),
              () -> fence().server());
    }
  }

  @Override
  public void start() {
    if (writer != null) {
      // Before the read of the position, which waits for any transaction left open.
      writer.openNow();
    }
    delegate.start();
  }

  @Override
  public void stop() {
    try {
      if (writer != null) {
        writer.close();
      }
      delegate.stop();
    } finally {
      if (admin != null) {
        admin.close(ADMIN_CLOSE);
        admin = null;
      }
    }
  }

  /**
   * Debezium's Kafka offset store as {@code KafkaConnectUtil.kafkaOffsetBackingStore} makes it, but
   * with its admin client kept: Debezium hands the store a shared admin that nothing closes
   * (Connect's worker owns it there), so every engine start left an admin client, its thread and
   * its connections behind, one per restart for the life of the relay.
   */
  private OffsetBackingStore kafkaStore(Map<String, String> properties) {
    for (String key :
        List.of(
            "bootstrap.servers",
            "offset.storage.topic",
            "offset.storage.partitions",
            "offset.storage.replication.factor")) {
      if (!properties.containsKey(key)) {
        throw new IllegalArgumentException("the Kafka offset store needs " + key);
      }
    }
    Map<String, Object> adminProperties = new HashMap<>(properties);
    adminProperties.put(AdminClientConfig.CLIENT_ID_CONFIG, "debezium-servershared-admin");
    admin = new SharedTopicAdmin(adminProperties);
    return new KafkaOffsetBackingStore(
        admin, () -> "debezium-server", KafkaConnectUtil.converterForOffsetStore());
  }

  @Override
  public Future<Map<ByteBuffer, ByteBuffer>> get(Collection<ByteBuffer> keys) {
    if (fenceId == null) {
      return delegate.get(keys);
    }
    boolean forCommit = readForCommit();
    if (forCommit) {
      // The task reads back what it just stored, to confirm that LSN to PostgreSQL: the
      // acknowledged write answers that. Reading Kafka's log to its end there cost a round trip
      // after every flush, and once, after the broker had been frozen, never came back
      // (KafkaUnavailableIT), stopping the engine's polling with it.
      Optional<Map<ByteBuffer, ByteBuffer>> answered = knownFor(keys);
      if (answered.isPresent()) {
        return CompletableFuture.completedFuture(answered.get());
      }
    }
    // Debezium waits for the position before its task goes on; the check goes into that wait.
    try {
      Map<ByteBuffer, ByteBuffer> values = delegate.get(keys).get();
      if (!forCommit) {
        fence().starting(positionIn(values));
      }
      remember(values);
      return CompletableFuture.completedFuture(values);
    } catch (ExecutionException e) {
      return CompletableFuture.failedFuture(e.getCause());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return CompletableFuture.failedFuture(e);
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
  }

  /**
   * Whether the task reads its position to commit it rather than to start from it: Debezium's
   * PostgreSQL task reads it again after every flush ({@code PostgresConnectorTask.performCommit},
   * to confirm the LSN to PostgreSQL). Checking the slot there opened a PostgreSQL connection on
   * the engine's batch thread four times a second; a start is what the check is for.
   */
  static boolean readForCommit() {
    return STACK.walk(
        frames ->
            frames
                .limit(32)
                .anyMatch(
                    f ->
                        SourceTask.class.isAssignableFrom(f.getDeclaringClass())
                            && (f.getMethodName().equals("commit")
                                || f.getMethodName().equals("performCommit"))));
  }

  /** What this store knows of every key in {@code keys}; empty when it does not know one. */
  private Optional<Map<ByteBuffer, ByteBuffer>> knownFor(Collection<ByteBuffer> keys) {
    synchronized (known) {
      Map<ByteBuffer, ByteBuffer> values = new HashMap<>();
      for (ByteBuffer key : keys) {
        if (!known.containsKey(key)) {
          return Optional.empty();
        }
        values.put(key, known.get(key));
      }
      return Optional.of(values);
    }
  }

  private void remember(Map<ByteBuffer, ByteBuffer> values) {
    synchronized (known) {
      known.putAll(values);
    }
  }

  /** The furthest position among the values of the engine's keys. */
  private static Optional<StoredPosition.Position> positionIn(Map<ByteBuffer, ByteBuffer> values) {
    Optional<StoredPosition.Position> furthest = Optional.empty();
    for (ByteBuffer value : values.values()) {
      if (value == null) {
        continue;
      }
      byte[] bytes = new byte[value.remaining()];
      value.duplicate().get(bytes);
      Optional<StoredPosition.Position> p = StoredPosition.Position.parse(bytes);
      if (p.isPresent() && (furthest.isEmpty() || p.get().lsn() > furthest.get().lsn())) {
        furthest = p;
      }
    }
    return furthest;
  }

  @Override
  public Future<Void> set(Map<ByteBuffer, ByteBuffer> values, Callback<Void> callback) {
    if (!fence().leads()) {
      LeadershipLost refused =
          new LeadershipLost("not the leader: the position is not stored over the leader's");
      LOG.warn("{}", refused.getMessage());
      if (callback != null) {
        callback.onCompletion(refused, null);
      }
      return CompletableFuture.failedFuture(refused);
    }
    // Only a write Kafka acknowledged answers a later read: confirming an LSN to PostgreSQL that
    // is not stored would lose the events between on the next start.
    Callback<Void> remembering =
        (error, result) -> {
          if (error == null) {
            remember(values);
          }
          if (callback != null) {
            callback.onCompletion(error, result);
          }
        };
    return writer != null ? writer.write(values, remembering) : delegate.set(values, remembering);
  }

  @Override
  public Set<Map<String, Object>> connectorPartitions(String connectorName) {
    return delegate.connectorPartitions(connectorName);
  }
}
