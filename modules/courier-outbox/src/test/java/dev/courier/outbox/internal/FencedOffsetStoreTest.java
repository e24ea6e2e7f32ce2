package dev.courier.outbox.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.debezium.embedded.EmbeddedWorkerConfig;
import io.debezium.embedded.KafkaConnectUtil;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.connect.source.SourceRecord;
import org.apache.kafka.connect.source.SourceTask;
import org.apache.kafka.connect.storage.MemoryOffsetBackingStore;
import org.apache.kafka.connect.storage.OffsetBackingStore;
import org.apache.kafka.connect.util.Callback;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The fence over Kafka Connect's in-memory offset store, which stands in for the Kafka one. */
class FencedOffsetStoreTest {

  private static final ByteBuffer KEY = bytes("slot");

  private final AtomicBoolean leads = new AtomicBoolean(true);
  private final String fence = FencedOffsetStore.register(leads::get);
  private FencedOffsetStore store;

  @AfterEach
  void stop() {
    FencedOffsetStore.unregister(fence);
    if (store != null) {
      store.stop();
    }
  }

  @Test
  void storesThePositionWhileTheRelayLeads() throws Exception {
    start(fence);
    assertThat(set("0/10")).isNull();
    assertThat(stored()).isEqualTo("0/10");
  }

  @Test
  void refusesThePositionOnceTheLeaseIsGoneAndKeepsTheLeadersOne() throws Exception {
    start(fence);
    set("0/20");
    leads.set(false);

    Throwable refused = set("0/10");

    assertThat(refused).isInstanceOf(LeadershipLost.class).hasMessageContaining("not the leader");
    assertThat(stored()).as("the newer position stays").isEqualTo("0/20");
    assertThatThrownBy(() -> store.set(Map.of(KEY, bytes("0/10")), null).get())
        .isInstanceOf(ExecutionException.class)
        .hasCauseInstanceOf(LeadershipLost.class);
  }

  @Test
  void storesNothingOnceTheRelayHasLetGo() throws Exception {
    start(fence);
    FencedOffsetStore.unregister(fence);

    assertThat(set("0/10")).isInstanceOf(LeadershipLost.class);
    assertThat(stored()).isNull();
  }

  @Test
  void anEngineWithoutAFenceStoresAsKafkasStoreDoes() throws Exception {
    leads.set(false);
    start(null);
    assertThat(set("0/10")).isNull();
    assertThat(stored()).isEqualTo("0/10");
  }

  @Test
  void checksTheSlotWhenTheTaskStartsButNotWhenItReadsItsPositionToCommitIt() throws Exception {
    AtomicInteger checks = new AtomicInteger();
    String checked =
        FencedOffsetStore.register(
            new FencedOffsetStore.Fence() {
              @Override
              public boolean leads() {
                return true;
              }

              @Override
              public void starting(Optional<StoredPosition.Position> stored) {
                checks.incrementAndGet();
              }
            });
    try {
      start(checked);
      set("0/10");
      Task task = new Task();

      task.start(Map.of());
      task.commit();
      task.commit();

      assertThat(checks).as("one check, the start's").hasValue(1);
      assertThat(task.read).as("every read answered").isEqualTo(3);
    } finally {
      FencedOffsetStore.unregister(checked);
    }
  }

  @Test
  void aCommitReadIsAnsweredByTheLastWriteKafkaAcknowledgedWithoutReadingKafkaAgain()
      throws Exception {
    CountingStore kafka = new CountingStore();
    start(fence, kafka);
    assertThat(set("0/10")).isNull();
    Task task = new Task();

    task.start(Map.of());
    assertThat(kafka.reads).as("the start reads Kafka").hasValue(1);
    assertThat(set("0/20")).isNull();
    task.commit();
    assertThat(task.last).isEqualTo("0/20");

    kafka.refuse = true;
    assertThat(set("0/30")).isNotNull();
    task.commit();

    assertThat(task.last).as("a write Kafka refused answers nothing").isEqualTo("0/20");
    assertThat(kafka.reads).as("commits read no Kafka").hasValue(1);
  }

  /** Kafka's store in memory, counting its reads, refusing writes when told. */
  private static final class CountingStore extends MemoryOffsetBackingStore {
    final AtomicInteger reads = new AtomicInteger();
    volatile boolean refuse;

    @Override
    public Set<Map<String, Object>> connectorPartitions(String connectorName) {
      return Set.of();
    }

    @Override
    public Future<Map<ByteBuffer, ByteBuffer>> get(Collection<ByteBuffer> keys) {
      reads.incrementAndGet();
      return super.get(keys);
    }

    @Override
    public Future<Void> set(Map<ByteBuffer, ByteBuffer> values, Callback<Void> callback) {
      if (refuse) {
        IllegalStateException refused = new IllegalStateException("refused");
        callback.onCompletion(refused, null);
        return CompletableFuture.failedFuture(refused);
      }
      return super.set(values, callback);
    }
  }

  /** Reads its position as Debezium's PostgreSQL task does: at start and on every commit. */
  private final class Task extends SourceTask {
    int read;
    String last;

    @Override
    public void start(Map<String, String> props) {
      readPosition();
    }

    @Override
    public void commit() {
      readPosition();
    }

    private void readPosition() {
      try {
        ByteBuffer value = store.get(List.of(KEY)).get(10, TimeUnit.SECONDS).get(KEY);
        last = value == null ? null : StandardCharsets.UTF_8.decode(value.duplicate()).toString();
        read++;
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
    }

    @Override
    public List<SourceRecord> poll() {
      return List.of();
    }

    @Override
    public void stop() {}

    @Override
    public String version() {
      return "test";
    }
  }

  private void start(String fenceId) {
    start(fenceId, KafkaConnectUtil.memoryOffsetBackingStore());
  }

  private void start(String fenceId, OffsetBackingStore kafka) {
    Map<String, String> properties = new HashMap<>();
    properties.put("offset.storage", FencedOffsetStore.class.getName());
    if (fenceId != null) {
      properties.put(FencedOffsetStore.FENCE, fenceId);
    }
    store = new FencedOffsetStore(p -> kafka);
    store.configure(new EmbeddedWorkerConfig(properties));
    store.start();
  }

  /** Sets a position and returns the error its callback got, or null. */
  private Throwable set(String position) throws Exception {
    CompletableFuture<Throwable> completed = new CompletableFuture<>();
    store.set(Map.of(KEY, bytes(position)), (error, ignored) -> completed.complete(error));
    return completed.get(10, TimeUnit.SECONDS);
  }

  private String stored() throws Exception {
    ByteBuffer value = store.get(List.of(KEY)).get(10, TimeUnit.SECONDS).get(KEY);
    return value == null ? null : StandardCharsets.UTF_8.decode(value.duplicate()).toString();
  }

  private static ByteBuffer bytes(String s) {
    return ByteBuffer.wrap(s.getBytes(StandardCharsets.UTF_8));
  }
}
