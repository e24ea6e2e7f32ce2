package dev.courier.idempotency.internal;

import dev.courier.idempotency.IdempotentHandler;
import dev.courier.idempotency.RecordProcessingException;
import dev.courier.idempotency.RecordResult;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.common.TopicPartition;

/**
 * Batch mode's database side: a poll's transactions (one per partition, in order) run on a thread
 * of their own while the loop polls the next batch, so Kafka's work for one batch overlaps the
 * database's for the one before. At most one batch is in the database; its records are settled in
 * order on the loop's thread.
 */
public final class DatabaseBatches<K, V> implements AutoCloseable {

  /** Settles records that are done, in order, on the loop's thread. */
  @FunctionalInterface
  public interface Settler<K, V> {
    void settle(
        TopicPartition partition,
        List<ConsumerRecord<K, V>> records,
        List<RecordResult<K, V>> results);
  }

  private record InDatabase<K, V>(
      ConsumerRecords<K, V> records, Future<Map<TopicPartition, Object>> results) {}

  private final IdempotentHandler<K, V> handler;
  private final ExecutorService database;
  private InDatabase<K, V> inDatabase;

  public DatabaseBatches(IdempotentHandler<K, V> handler) {
    this.handler = handler;
    this.database =
        Executors.newSingleThreadExecutor(
            r -> {
              Thread t = new Thread(r, "courier-idempotency-db-" + handler.consumerName());
              t.setDaemon(true);
              return t;
            });
  }

  /** Whether a batch is in the database. */
  public boolean busy() {
    return inDatabase != null;
  }

  /** Hands a poll's records to the database thread. */
  public void submit(ConsumerRecords<K, V> records) {
    inDatabase = new InDatabase<>(records, database.submit(() -> handleAll(records)));
  }

  /**
   * The batch's transactions, one per partition, in order; a partition whose transaction failed has
   * its failure instead of results, and the partitions after it are not tried.
   */
  private Map<TopicPartition, Object> handleAll(ConsumerRecords<K, V> records) {
    Map<TopicPartition, Object> results = new LinkedHashMap<>();
    for (TopicPartition partition : records.partitions()) {
      try {
        results.put(partition, handler.handleBatch(records.records(partition)));
      } catch (RuntimeException e) {
        results.put(partition, e);
        break;
      }
    }
    return results;
  }

  /**
   * Waits for the batch in the database, if any, and settles its records in order up to the first a
   * transient failure stopped.
   *
   * @return that transient failure, its partitions marked in {@code rewind} from their first record
   *     not done (and every partition after it from its first); null when the batch settled
   * @throws RuntimeException a permanent failure of a partition's transaction: nothing of that
   *     partition is settled
   */
  @SuppressWarnings("unchecked")
  public Throwable settle(Rewind rewind, Settler<K, V> settler) {
    InDatabase<K, V> batch = inDatabase;
    if (batch == null) {
      return null;
    }
    inDatabase = null;
    Map<TopicPartition, Object> results;
    try {
      results = batch.results().get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new RecordProcessingException("interrupted while a batch was in the database", e);
    } catch (ExecutionException e) {
      throw new RecordProcessingException("batch failed: " + e.getCause(), e.getCause());
    }
    Throwable stopped = null;
    for (TopicPartition partition : batch.records().partitions()) {
      List<ConsumerRecord<K, V>> records = batch.records().records(partition);
      Object outcome = results.get(partition);
      if (stopped != null || outcome == null) {
        rewind.from(partition, records.get(0).offset()); // not tried: after the failure
      } else if (outcome instanceof RuntimeException e) {
        if (!TransientFailures.isTransient(e)) {
          throw e;
        }
        rewind.from(partition, records.get(0).offset());
        stopped = e;
      } else {
        List<RecordResult<K, V>> partitionResults = (List<RecordResult<K, V>>) outcome;
        int done = 0;
        while (done < records.size()
            && !TransientFailures.isTransient(partitionResults.get(done))) {
          done++;
        }
        settler.settle(partition, records.subList(0, done), partitionResults.subList(0, done));
        if (done < records.size()) {
          rewind.from(partition, records.get(done).offset());
          stopped = partitionResults.get(done).failure();
        }
      }
    }
    return stopped;
  }

  @Override
  public void close() {
    database.shutdownNow();
  }
}
