package dev.courier.retry.internal;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.errors.AuthorizationException;
import org.apache.kafka.common.errors.InvalidProducerEpochException;
import org.apache.kafka.common.errors.OutOfOrderSequenceException;
import org.apache.kafka.common.errors.ProducerFencedException;
import org.apache.kafka.common.errors.RetriableException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.errors.TransactionalIdAuthorizationException;
import org.apache.kafka.common.errors.UnsupportedVersionException;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Key order's dead letters, written in Kafka transactions under one transactional id per main-topic
 * partition, {@code <group>.<topic>.dlt.<partition>}. The partition's owner opens the id when it is
 * given the partition ({@link #open}), before it reads the DLT to learn what its former owner
 * parked: that bumps the id's epoch, so a letter the former owner still holds (frozen, or cut off
 * from the broker) is refused when it wakes, and a transaction it left open is aborted, which a
 * read-committed reader never sees. Without it such a letter landed after the new owner had read
 * the DLT, and the record was parked a second time ({@code FaultCampaign} seed 8 of 2026-12-07, in
 * 5 of 6 runs: a letter failed at 9.8 s, while its worker was cut off, landed at 18 s when the
 * network healed).
 *
 * <p>Letters are sent on a thread of their own, each partition's waiting letters in one
 * transaction; a letter is acknowledged when its transaction commits. A transaction aborted by one
 * letter's refusal (too large, the DLT's writes denied) fails that letter with its cause and the
 * others as retriable, so they are sent again and not parked as refused.
 */
public final class FencedLetters implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(FencedLetters.class);
  private static final Duration CLOSE = Duration.ofSeconds(5);

  /**
   * A worker killed with a transaction open holds read-committed readers of its DLT partition back
   * until it times out, when no next owner opens the id sooner; a transaction of letters lasts a
   * produce round trip.
   */
  private static final Duration TRANSACTION_TIMEOUT = Duration.ofSeconds(10);

  /**
   * A letter's transaction that was aborted for another letter's sake, or whose partition's id is
   * not open here (not owned, or fenced): it is sent again, or comes again with its record.
   */
  static final class NotWritten extends RetriableException {
    NotWritten(String message, Throwable cause) {
      super(message, cause);
    }
  }

  private record Pending(
      ProducerRecord<byte[], byte[]> letter, CompletableFuture<RecordMetadata> ack) {}

  private final Map<String, Object> settings;
  private final String idPrefix;
  private final Duration timeout;
  private final ExecutorService thread;
  private final ConcurrentLinkedQueue<Pending> queue = new ConcurrentLinkedQueue<>();

  /** Open ids by main-topic partition; touched on the letters' thread only. */
  private final Map<Integer, KafkaProducer<byte[], byte[]>> producers = new HashMap<>();

  /**
   * @param producerSettings the ladder's client settings for a producer (bootstrap, security)
   * @param idPrefix {@code <group>.<topic>.dlt.}: the partition is appended
   * @param timeout how long opening an id may take before the partition's restore is tried again
   */
  public FencedLetters(Map<String, Object> producerSettings, String idPrefix, Duration timeout) {
    this.settings = new HashMap<>(producerSettings);
    settings.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
    settings.put(ProducerConfig.ACKS_CONFIG, "all");
    settings.put(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG, (int) TRANSACTION_TIMEOUT.toMillis());
    settings.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    settings.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    this.idPrefix = idPrefix;
    this.timeout = timeout;
    this.thread =
        Executors.newSingleThreadExecutor(
            r -> {
              Thread t = new Thread(r, "courier-letters-" + idPrefix);
              t.setDaemon(true);
              return t;
            });
  }

  /** The transactional id of a main-topic partition's letters. */
  public String transactionalId(int partition) {
    return idPrefix + partition;
  }

  /**
   * Opens the partition's id, which fences its former owner's letters: on the loop's thread, when
   * the partition is assigned and before its DLT is read.
   *
   * @throws KafkaException the id could not be opened (the restore is tried again)
   */
  public void open(int partition) {
    await(
        thread.submit(
            () -> {
              close(partition);
              Map<String, Object> p = new HashMap<>(settings);
              p.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, transactionalId(partition));
              p.put(ProducerConfig.CLIENT_ID_CONFIG, transactionalId(partition));
              KafkaProducer<byte[], byte[]> opened = new KafkaProducer<>(p);
              try {
                opened.initTransactions();
              } catch (KafkaException e) {
                opened.close(Duration.ZERO);
                throw explained(partition, e);
              }
              producers.put(partition, opened);
            }));
  }

  /** Partitions revoked or lost: their ids are closed, a transaction left open aborted. */
  public void release(Iterable<Integer> partitions) {
    List<Integer> gone = new ArrayList<>();
    partitions.forEach(gone::add);
    await(thread.submit(() -> gone.forEach(this::close)));
  }

  /** Sends a letter in its partition's next transaction; acknowledged when that commits. */
  public Future<RecordMetadata> send(ProducerRecord<byte[], byte[]> letter) {
    CompletableFuture<RecordMetadata> ack = new CompletableFuture<>();
    queue.add(new Pending(letter, ack));
    try {
      thread.execute(this::drain);
    } catch (java.util.concurrent.RejectedExecutionException e) {
      ack.completeExceptionally(new NotWritten("the ladder is closing", e));
    }
    return ack;
  }

  private void drain() {
    Map<Integer, List<Pending>> byPartition = new LinkedHashMap<>();
    for (Pending p; (p = queue.poll()) != null; ) {
      byPartition.computeIfAbsent(p.letter().partition(), k -> new ArrayList<>()).add(p);
    }
    byPartition.forEach(this::write);
  }

  private void write(int partition, List<Pending> letters) {
    KafkaProducer<byte[], byte[]> producer = producers.get(partition);
    if (producer == null) {
      KafkaException why =
          new NotWritten(transactionalId(partition) + " is not open on this member", null);
      letters.forEach(p -> p.ack().completeExceptionally(why));
      return;
    }
    List<Future<RecordMetadata>> sends = new ArrayList<>();
    try {
      producer.beginTransaction();
      letters.forEach(p -> sends.add(producer.send(p.letter())));
      producer.commitTransaction();
    } catch (ProducerFencedException
        | InvalidProducerEpochException
        | OutOfOrderSequenceException
        | TransactionalIdAuthorizationException
        | UnsupportedVersionException e) {
      // This producer can do nothing more: the partition's next owner opened the id, or Kafka
      // refuses it. Its letters come again with their records, on whichever member owns them.
      close(partition);
      fail(letters, sends, explained(partition, e));
      return;
    } catch (KafkaException e) {
      abort(partition, producer);
      fail(letters, sends, e);
      return;
    } catch (RuntimeException e) {
      // Not Kafka's answer (a producer in a state it should not be in): the id is closed, so no
      // letter waits for ever on a transaction nobody ends.
      close(partition);
      fail(letters, sends, new NotWritten("the letters' producer failed: " + e, e));
      return;
    }
    for (int i = 0; i < letters.size(); i++) {
      try {
        letters.get(i).ack().complete(sends.get(i).get());
      } catch (ExecutionException | InterruptedException e) {
        letters.get(i).ack().completeExceptionally(e); // not reached: committed, so written
      }
    }
  }

  /** Each letter fails with its own send's refusal, or as not written when another's aborted it. */
  private void fail(List<Pending> letters, List<Future<RecordMetadata>> sends, KafkaException why) {
    for (int i = 0; i < letters.size(); i++) {
      Throwable own = i < sends.size() ? refusal(sends.get(i)) : null;
      letters
          .get(i)
          .ack()
          .completeExceptionally(
              own != null
                  ? own
                  : why instanceof RetriableException
                      ? why
                      : new NotWritten("its transaction was aborted: " + why, why));
    }
  }

  /** The send's own refusal, if it was refused (not merely aborted with its transaction). */
  private static Throwable refusal(Future<RecordMetadata> send) {
    if (!send.isDone()) {
      return null;
    }
    try {
      send.get();
      return null;
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      boolean abortedOnly =
          cause instanceof org.apache.kafka.common.errors.TransactionAbortedException;
      return abortedOnly ? null : cause;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return null;
    }
  }

  private void abort(int partition, KafkaProducer<byte[], byte[]> producer) {
    try {
      producer.abortTransaction();
    } catch (KafkaException again) {
      // Opening the id again aborts what this producer left open.
      close(partition);
      LOG.warn(
          "{}: could not abort a transaction of dead letters ({}); the id is closed until the"
              + " partition is assigned again",
          transactionalId(partition),
          again.toString());
    }
  }

  private KafkaException explained(int partition, KafkaException e) {
    if (e instanceof ProducerFencedException || e instanceof InvalidProducerEpochException) {
      LOG.warn(
          "dead letters not written: {} was opened by the partition's next owner",
          transactionalId(partition));
      return new NotWritten(transactionalId(partition) + " was opened by another member", e);
    }
    if (e instanceof AuthorizationException && !(e instanceof TopicAuthorizationException)) {
      return new KafkaException(
          "the ladder's principal may not write dead letters under transactional id "
              + transactionalId(partition)
              + " (with retry.ordering=key it needs WRITE and DESCRIBE on TransactionalId "
              + idPrefix
              + "*): "
              + e.getMessage(),
          e);
    }
    return e;
  }

  private void close(int partition) {
    KafkaProducer<byte[], byte[]> producer = producers.remove(partition);
    if (producer != null) {
      producer.close(Duration.ZERO);
    }
  }

  private void await(Future<?> task) {
    try {
      task.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (ExecutionException e) {
      throw e.getCause() instanceof KafkaException k ? k : new KafkaException(e.getCause());
    } catch (java.util.concurrent.TimeoutException e) {
      throw new org.apache.kafka.common.errors.TimeoutException(
          "the dead letters' transactional ids did not answer within " + timeout, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new org.apache.kafka.common.errors.InterruptException(e);
    }
  }

  @Override
  public void close() {
    try {
      thread.submit(() -> List.copyOf(producers.keySet()).forEach(this::close));
    } catch (java.util.concurrent.RejectedExecutionException e) {
      return;
    }
    thread.shutdown();
    try {
      if (!thread.awaitTermination(CLOSE.toMillis(), TimeUnit.MILLISECONDS)) {
        thread.shutdownNow();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
