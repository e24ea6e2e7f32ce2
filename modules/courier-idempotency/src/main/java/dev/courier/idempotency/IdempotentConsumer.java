package dev.courier.idempotency;

import dev.courier.core.CrashPoints;
import dev.courier.core.internal.PollLoop;
import dev.courier.idempotency.internal.ConsumerCommits;
import dev.courier.idempotency.internal.IdempotencyMetrics;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Metrics;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Predicate;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.Deserializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A plain Kafka consumer loop around an {@link IdempotentHandler}: poll, apply (each record or the
 * whole batch) in the database, then commit offsets, never before. A partition taken away in a
 * rebalance has what is done committed and the rest dropped (its new owner gets it again and the
 * store deduplicates). Run it on one thread; {@link #close()} may be called from any other.
 *
 * <p>In batch mode a poll's transactions run on a database thread of the consumer's own while the
 * loop polls the next batch, so the two overlap; the effect is called on that thread. Its records
 * are settled (counted, failures handed to {@code onFailure} on the loop's thread) and their
 * offsets committed only once its transactions have committed, before a revocation and before the
 * consumer closes.
 */
public final class IdempotentConsumer<K, V> implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(IdempotentConsumer.class);

  private final KafkaConsumer<K, V> consumer;
  private final Collection<String> topics;
  private final IdempotentHandler<K, V> handler;
  private final boolean batchMode;
  private final RecordFailureHandler<K, V> onFailure;
  private final Duration pollTimeout;
  private final ConsumerCommits commits;

  /** Batch mode: the one thread the transactions run on, and the batch it is running. */
  private final ExecutorService database;

  private InDatabase<K, V> inDatabase;

  private final PollLoop loop;
  private long polls;
  private long applied;
  private long duplicates;
  private long failed;

  private IdempotentConsumer(Builder<K, V> b, Map<String, Object> consumerConfig) {
    this.consumer = new KafkaConsumer<>(consumerConfig, b.keyDeserializer, b.valueDeserializer);
    this.loop = new PollLoop(consumer, this::closeResources);
    this.topics = List.copyOf(b.topics);
    this.handler = b.handler;
    this.batchMode = b.batchMode != null ? b.batchMode : b.handler.batchMode();
    this.database =
        batchMode
            ? Executors.newSingleThreadExecutor(
                r -> {
                  Thread t = new Thread(r, "courier-idempotency-db-" + b.handler.consumerName());
                  t.setDaemon(true);
                  return t;
                })
            : null;
    this.onFailure = b.onFailure;
    this.pollTimeout = b.pollTimeout != null ? b.pollTimeout : b.config.pollTimeout();
    this.commits =
        new ConsumerCommits(consumer, IdempotencyMetrics.commitsRefused(b.meterRegistry, b.group));
  }

  /**
   * A consumer with these {@link IdempotentConsumerConfig} settings ({@code bootstrap.servers},
   * {@code kafka.*}, optionally {@code idempotency.group.id}).
   *
   * @throws org.apache.kafka.common.config.ConfigException naming a bad setting
   */
  public static <K, V> Builder<K, V> builder(
      Map<String, ?> settings, Deserializer<K> keys, Deserializer<V> values) {
    return new Builder<>(new IdempotentConsumerConfig(settings), keys, values);
  }

  /** Runs until {@link #close()}. */
  public void run() {
    runUntil(progress -> false);
  }

  /**
   * Runs until the condition holds after a poll, or {@link #close()}.
   *
   * @throws RecordProcessingException when the failure handler refuses a record
   */
  public void runUntil(Predicate<ConsumerProgress> done) {
    loop.run(
        () -> consumer.subscribe(topics, new CommitDoneWork()),
        () -> done.test(progress()),
        this::pollOnce);
  }

  private void pollOnce() {
    // With a batch in the database, take what is already fetched and settle that batch; waiting
    // here would only delay its offsets.
    ConsumerRecords<K, V> records = consumer.poll(inDatabase == null ? pollTimeout : Duration.ZERO);
    polls++;
    if (batchMode) {
      settleInDatabase();
      if (!records.isEmpty()) {
        inDatabase = new InDatabase<>(records, database.submit(() -> handleAll(records)));
      }
    } else {
      for (TopicPartition partition : records.partitions()) {
        List<ConsumerRecord<K, V>> batch = records.records(partition);
        List<RecordResult<K, V>> results = new ArrayList<>(batch.size());
        batch.forEach(record -> results.add(handleOne(record)));
        settle(partition, batch, results);
      }
    }
    if (commits.hasPending()) {
      CrashPoints.AFTER_DB_COMMIT_BEFORE_OFFSET_COMMIT.reach();
      commits.commitAsync();
    }
  }

  /**
   * A poll's records in batch mode, whose transactions (one per partition, in order) run on the
   * database thread while the loop polls the next batch: Kafka's work for one batch overlaps the
   * database's for the one before. At most one is in the database; its offsets are committed only
   * once it is settled.
   */
  private record InDatabase<K, V>(
      ConsumerRecords<K, V> records,
      Future<Map<TopicPartition, List<RecordResult<K, V>>>> results) {}

  private Map<TopicPartition, List<RecordResult<K, V>>> handleAll(ConsumerRecords<K, V> records) {
    Map<TopicPartition, List<RecordResult<K, V>>> results = new LinkedHashMap<>();
    for (TopicPartition partition : records.partitions()) {
      results.put(partition, handler.handleBatch(records.records(partition)));
    }
    return results;
  }

  /** Waits for the batch in the database, if any, and settles its records in order. */
  private void settleInDatabase() {
    InDatabase<K, V> batch = inDatabase;
    if (batch == null) {
      return;
    }
    inDatabase = null;
    Map<TopicPartition, List<RecordResult<K, V>>> results;
    try {
      results = batch.results().get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new RecordProcessingException("interrupted while a batch was in the database", e);
    } catch (ExecutionException e) {
      // What handleBatch threw (the database gone, say): the loop stops, nothing of it committed.
      throw e.getCause() instanceof RuntimeException r
          ? r
          : new RecordProcessingException("batch failed: " + e.getCause(), e.getCause());
    }
    results.forEach(
        (partition, partitionResults) ->
            settle(partition, batch.records().records(partition), partitionResults));
  }

  public ConsumerProgress progress() {
    return new ConsumerProgress(
        polls, applied, duplicates, failed, commits.commits(), commits.refused());
  }

  /** Stops the loop (from another thread) or closes the idle consumer. */
  @Override
  public void close() {
    loop.close();
  }

  /** Counts each record's outcome, hands failures to {@code onFailure}, and marks it done. */
  private void settle(
      TopicPartition partition,
      List<ConsumerRecord<K, V>> records,
      List<RecordResult<K, V>> results) {
    for (int i = 0; i < records.size(); i++) {
      ConsumerRecord<K, V> record = records.get(i);
      RecordResult<K, V> result = results.get(i);
      switch (result.outcome()) {
        case APPLIED -> applied++;
        case DUPLICATE -> duplicates++;
        case FAILED -> {
          failed++;
          try {
            onFailure.onFailure(record, result.failure());
          } catch (Exception refused) {
            // Commit what came before the record; it is delivered again after a restart.
            commits.done(partition, record.offset());
            commits.commitNow(consumer.assignment());
            throw new RecordProcessingException(
                "stopped at "
                    + TransactionalIdempotentHandler.describe(record)
                    + ": "
                    + refused.getMessage(),
                refused);
          }
        }
      }
      commits.done(partition, record.offset() + 1);
    }
  }

  private RecordResult<K, V> handleOne(ConsumerRecord<K, V> record) {
    try {
      return RecordResult.of(record, handler.handle(record));
    } catch (RuntimeException e) {
      return RecordResult.failed(record, e);
    }
  }

  /** On the loop's thread, once: what is done is committed, then the consumer closes. */
  private void closeResources() {
    try {
      try {
        settleInDatabase();
      } catch (RuntimeException e) {
        LOG.warn("the last batch did not settle before closing: {}", e.toString());
      }
      commits.commitAllNow();
    } finally {
      try {
        consumer.close();
      } finally {
        if (database != null) {
          database.shutdownNow();
        }
      }
    }
  }

  /** Commits what is done for partitions being taken away and drops the rest. */
  private final class CommitDoneWork implements ConsumerRebalanceListener {
    @Override
    public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
      // The batch in the database may hold records of these partitions: it settles first.
      settleInDatabase();
      commits.commitNow(partitions);
    }

    @Override
    public void onPartitionsLost(Collection<TopicPartition> partitions) {
      settleInDatabase();
      commits.drop(partitions);
    }

    @Override
    public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
      LOG.info("{} assigned {}", handler.consumerName(), partitions);
    }
  }

  /** Configures an {@link IdempotentConsumer}. */
  public static final class Builder<K, V> {
    private final IdempotentConsumerConfig config;
    private final Deserializer<K> keyDeserializer;
    private final Deserializer<V> valueDeserializer;
    private Collection<String> topics;
    private IdempotentHandler<K, V> handler;
    private Boolean batchMode;
    private RecordFailureHandler<K, V> onFailure = RecordFailureHandler.failFast();
    private Duration pollTimeout;
    private String group;
    private MeterRegistry meterRegistry = Metrics.globalRegistry;

    private Builder(IdempotentConsumerConfig config, Deserializer<K> keys, Deserializer<V> values) {
      this.config = config;
      this.keyDeserializer = Objects.requireNonNull(keys, "key deserializer");
      this.valueDeserializer = Objects.requireNonNull(values, "value deserializer");
    }

    public Builder<K, V> topics(Collection<String> topics) {
      this.topics = List.copyOf(topics);
      return this;
    }

    public Builder<K, V> handler(IdempotentHandler<K, V> handler) {
      this.handler = Objects.requireNonNull(handler, "handler");
      return this;
    }

    /**
     * One transaction per poll batch (per partition) instead of one per record; by default what the
     * handler's {@code idempotency.batch.mode} says.
     */
    public Builder<K, V> batchMode(boolean batchMode) {
      this.batchMode = batchMode;
      return this;
    }

    public Builder<K, V> onFailure(RecordFailureHandler<K, V> onFailure) {
      this.onFailure = Objects.requireNonNull(onFailure, "onFailure");
      return this;
    }

    /** Overrides {@code idempotency.poll.timeout.ms}. */
    public Builder<K, V> pollTimeout(Duration pollTimeout) {
      this.pollTimeout = Objects.requireNonNull(pollTimeout, "pollTimeout");
      return this;
    }

    public Builder<K, V> meterRegistry(MeterRegistry registry) {
      this.meterRegistry = Objects.requireNonNull(registry, "registry");
      return this;
    }

    public IdempotentConsumer<K, V> build() {
      if (topics == null || topics.isEmpty()) {
        throw new IllegalStateException("at least one topic is required");
      }
      Objects.requireNonNull(handler, "handler is required");
      group = config.groupId() != null ? config.groupId() : handler.consumerName();
      Map<String, Object> consumerConfig = config.clients().consumer();
      consumerConfig.put(ConsumerConfig.GROUP_ID_CONFIG, group);
      // A new group reads what is there, as the retry ladder does; Kafka's default skips it.
      consumerConfig.putIfAbsent(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
      // Offsets are committed here, after the database commit, and nowhere else.
      consumerConfig.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
      return new IdempotentConsumer<>(this, consumerConfig);
    }
  }
}
