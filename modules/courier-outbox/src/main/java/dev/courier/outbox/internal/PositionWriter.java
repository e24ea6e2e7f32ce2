package dev.courier.outbox.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.errors.AuthorizationException;
import org.apache.kafka.common.errors.InvalidProducerEpochException;
import org.apache.kafka.common.errors.OutOfOrderSequenceException;
import org.apache.kafka.common.errors.ProducerFencedException;
import org.apache.kafka.common.errors.UnsupportedVersionException;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.connect.util.Callback;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes a leading relay's positions to its offset topic, each flush in one Kafka transaction under
 * a transactional id every replica of the relay shares. Kafka Connect's own writer retries a
 * position for ever ({@code delivery.timeout.ms} at its maximum), so a leader frozen or cut off
 * just after its lease check delivered its older position after the new leader's, and the next
 * start found the slot ahead of it: a false gap. Here the new leader's first write opens the id
 * again ({@code initTransactions}), which bumps its epoch: whatever the old leader still has on its
 * way is refused by the broker, and its open transaction is aborted, which a read-committed reader
 * never sees.
 *
 * <p>Writes run on a thread of their own, in order, as the Kafka store's do: Debezium waits for a
 * flush with its own timeout and keeps the positions for the next one when it passes.
 */
final class PositionWriter implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(PositionWriter.class);
  private static final Duration CLOSE = Duration.ofSeconds(5);
  private static final Duration TRANSACTION_TIMEOUT = Duration.ofSeconds(10);
  private static final ObjectMapper JSON = new ObjectMapper();

  private final String topic;
  private final String transactionalId;
  private final Map<String, Object> settings;
  private final BooleanSupplier leads;
  private final Supplier<Optional<ServerIdentity>> server;
  private final ExecutorService thread;

  /** Opened at the first write, and again after an error that ends a transactional producer. */
  private KafkaProducer<byte[], byte[]> producer;

  /**
   * @param engine the engine's properties, whose producer settings (bootstrap, security) it uses
   */
  PositionWriter(
      Map<String, String> engine,
      String topic,
      String transactionalId,
      BooleanSupplier leads,
      Supplier<Optional<ServerIdentity>> server) {
    this.topic = topic;
    this.transactionalId = transactionalId;
    this.leads = leads;
    this.server = server;
    this.settings = producerSettings(engine, transactionalId);
    this.thread =
        Executors.newSingleThreadExecutor(
            r -> {
              Thread t = new Thread(r, "courier-positions-" + transactionalId);
              t.setDaemon(true);
              return t;
            });
  }

  static Map<String, Object> producerSettings(Map<String, String> engine, String transactionalId) {
    Map<String, Object> p = new HashMap<>();
    engine.forEach(
        (k, v) -> {
          if (ProducerConfig.configNames().contains(k)) {
            p.put(k, v);
          }
        });
    p.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, transactionalId);
    p.put(ProducerConfig.CLIENT_ID_CONFIG, transactionalId);
    p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
    p.put(ProducerConfig.ACKS_CONFIG, "all");
    // A leader gone with a transaction open (killed, cut off) holds read-committed readers back
    // until its transaction times out, when no new leader opens the id sooner.
    p.put(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG, (int) TRANSACTION_TIMEOUT.toMillis());
    p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    return p;
  }

  Future<Void> write(Map<ByteBuffer, ByteBuffer> values, Callback<Void> callback) {
    CompletableFuture<Void> done = new CompletableFuture<>();
    thread.execute(
        () -> {
          Throwable error = null;
          try {
            writeNow(values);
          } catch (RuntimeException e) {
            error = e;
          }
          if (callback != null) {
            callback.onCompletion(error, null);
          }
          if (error == null) {
            done.complete(null);
          } else {
            done.completeExceptionally(error);
          }
        });
    return done;
  }

  private void writeNow(Map<ByteBuffer, ByteBuffer> values) {
    // Checked again here: the write may have waited behind a slow one while the lease went.
    if (!leads.getAsBoolean()) {
      throw new LeadershipLost("not the leader: the position is not stored over the leader's");
    }
    open();
    Optional<ServerIdentity> from = server.get();
    try {
      producer.beginTransaction();
      values.forEach(
          (k, v) ->
              producer.send(
                  new ProducerRecord<>(topic, k == null ? null : k.array(), stamped(v, from))));
      producer.commitTransaction();
    } catch (ProducerFencedException
        | InvalidProducerEpochException
        | OutOfOrderSequenceException
        | AuthorizationException
        | UnsupportedVersionException e) {
      // This producer can do nothing more: another replica opened the id, or Kafka refuses it.
      discard();
      throw explained(e);
    } catch (KafkaException e) {
      abortOrDiscard();
      throw e;
    }
  }

  /**
   * Opens the id, which aborts what an earlier holder left open. Before the engine reads its
   * position, too ({@link #openNow}): a read-committed reader waits for an open transaction, and a
   * frozen leader's would otherwise hold the new leader's start until it timed out.
   */
  private void open() {
    if (producer != null) {
      return;
    }
    KafkaProducer<byte[], byte[]> opened = new KafkaProducer<>(settings);
    try {
      opened.initTransactions();
    } catch (KafkaException e) {
      opened.close(Duration.ZERO);
      throw explained(e);
    }
    producer = opened;
  }

  /** Opens the id now, while this relay leads; a failure is left to the first write. */
  void openNow() {
    try {
      thread
          .submit(
              () -> {
                if (leads.getAsBoolean()) {
                  open();
                }
              })
          .get();
    } catch (java.util.concurrent.ExecutionException e) {
      LOG.warn("cannot open {} yet: {}", transactionalId, e.getCause().toString());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** The value with the server it was read from ({@link ServerIdentity}), when known. */
  private static byte[] stamped(ByteBuffer value, Optional<ServerIdentity> from) {
    if (value == null) {
      return null;
    }
    byte[] bytes = value.array();
    if (from.isEmpty()) {
      return bytes;
    }
    try {
      JsonNode json = JSON.readTree(bytes);
      if (!(json instanceof ObjectNode object)) {
        return bytes;
      }
      from.get().addTo(object);
      return JSON.writeValueAsBytes(object);
    } catch (IOException e) {
      return bytes; // not Debezium's JSON: stored as it is
    }
  }

  private RuntimeException explained(KafkaException e) {
    if (e instanceof ProducerFencedException || e instanceof InvalidProducerEpochException) {
      LOG.warn(
          "position not stored: another replica of the relay opened {} since (it leads now)",
          transactionalId);
      return new LeadershipLost(
          "another replica stores the positions now (" + transactionalId + " was opened again)");
    }
    if (e instanceof AuthorizationException) {
      return new KafkaException(
          "the relay's principal may not store its position under transactional id "
              + transactionalId
              + " (it needs WRITE and DESCRIBE on that TransactionalId): "
              + e.getMessage(),
          e);
    }
    return e;
  }

  /** After a timeout or an abortable error: the next write starts a new transaction. */
  private void abortOrDiscard() {
    try {
      producer.abortTransaction();
    } catch (KafkaException again) {
      // Reopening the id later aborts what this producer left open.
      discard();
    }
  }

  private void discard() {
    if (producer != null) {
      producer.close(Duration.ZERO);
      producer = null;
    }
  }

  @Override
  public void close() {
    thread.shutdown();
    try {
      if (!thread.awaitTermination(CLOSE.toMillis(), TimeUnit.MILLISECONDS)) {
        thread.shutdownNow();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    if (producer != null) {
      producer.close(CLOSE);
      producer = null;
    }
  }
}
