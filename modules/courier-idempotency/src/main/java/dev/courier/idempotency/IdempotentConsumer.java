package dev.courier.idempotency;

import dev.courier.core.CrashPoints;
import dev.courier.core.ServiceHealth;
import dev.courier.core.internal.KafkaConnection;
import dev.courier.core.internal.PollLoop;
import dev.courier.core.internal.Traces;
import dev.courier.idempotency.internal.CommitDoneWork;
import dev.courier.idempotency.internal.ConsumerCommits;
import dev.courier.idempotency.internal.DatabaseBatches;
import dev.courier.idempotency.internal.DatabaseOutage;
import dev.courier.idempotency.internal.IdempotencyMetrics;
import dev.courier.idempotency.internal.RecordSpans;
import dev.courier.idempotency.internal.Rewind;
import dev.courier.idempotency.internal.TransientFailures;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Metrics;
import io.opentelemetry.api.OpenTelemetry;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.Predicate;
import org.apache.kafka.clients.consumer.ConsumerConfig;
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
  private final DatabaseOutage outage;
  private final KafkaConnection connection;
  private final RecordSpans spans;

  /** Partitions to read again after a transient failure found in a revocation callback. */
  private final Rewind rewindAfterCallback = new Rewind();

  private Throwable transientInCallback;

  /** Batch mode: the batch in the database, if any. */
  private final DatabaseBatches<K, V> database;

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
    this.database = batchMode ? new DatabaseBatches<>(b.handler) : null;
    this.onFailure = b.onFailure;
    this.pollTimeout = b.pollTimeout != null ? b.pollTimeout : b.config.pollTimeout();
    this.commits =
        new ConsumerCommits(
            consumer,
            IdempotencyMetrics.commitsRefused(b.meterRegistry, b.group),
            KafkaConnection.requestTimeout(consumerConfig));
    this.outage = new DatabaseOutage("idempotent consumer " + b.group, Clock.systemUTC());
    this.connection =
        new KafkaConnection(
            b.config.clients().bootstrapServersValue(),
            KafkaConnection.requestTimeout(consumerConfig),
            Clock.systemUTC());
    this.spans = new RecordSpans(Traces.of(b.openTelemetry), b.group);
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
        () ->
            consumer.subscribe(
                topics,
                new CommitDoneWork(this::settleInCallback, commits, handler.consumerName())),
        () -> done.test(progress()),
        this::pollOnce);
  }

  private void pollOnce() {
    // With a batch in the database, take what is already fetched and settle that batch; waiting
    // here would only delay its offsets.
    ConsumerRecords<K, V> records =
        consumer.poll(batchMode && database.busy() ? Duration.ZERO : pollTimeout);
    polls++;
    connection.observe(consumer);
    Rewind rewind = new Rewind();
    Throwable transientFailure = takeTransientFromCallback(rewind);
    if (transientFailure == null && batchMode) {
      transientFailure = database.settle(rewind, this::settle);
      if (transientFailure == null && !records.isEmpty()) {
        database.submit(records);
      }
    } else if (transientFailure == null) {
      transientFailure = handleEach(records, rewind);
    }
    if (commits.hasPending()) {
      CrashPoints.AFTER_DB_COMMIT_BEFORE_OFFSET_COMMIT.reach();
      commits.commitAsync();
    }
    if (transientFailure != null) {
      rewind.fetched(records); // what this poll fetched comes again, after the failed records
      waitOut(transientFailure, rewind);
    } else if (!records.isEmpty()) {
      outage.recovered();
    }
  }

  /** Single mode: each record in its own transaction, in order; stops at a transient failure. */
  private Throwable handleEach(ConsumerRecords<K, V> records, Rewind rewind) {
    for (TopicPartition partition : records.partitions()) {
      List<ConsumerRecord<K, V>> batch = records.records(partition);
      List<RecordResult<K, V>> results = new ArrayList<>(batch.size());
      for (ConsumerRecord<K, V> record : batch) {
        RecordResult<K, V> result = handleOne(record);
        if (TransientFailures.isTransient(result)) {
          settle(partition, batch.subList(0, results.size()), results);
          rewind.from(partition, record.offset());
          return result.failure();
        }
        results.add(result);
      }
      settle(partition, batch, results);
      rewind.settled(partition);
    }
    return null;
  }

  /**
   * Waits out an unavailable database, polling with every partition paused so the member stays in
   * its group; the partitions are then read again from the first record not done.
   */
  private void waitOut(Throwable failure, Rewind rewind) {
    rewind.apply(consumer);
    Duration wait = outage.failed(failure);
    long until = System.nanoTime() + wait.toNanos();
    Set<TopicPartition> paused = new HashSet<>(consumer.assignment());
    consumer.pause(paused);
    try {
      while (!loop.stopping() && System.nanoTime() < until) {
        long left = Math.max(1, (until - System.nanoTime()) / 1_000_000);
        ConsumerRecords<K, V> stray = consumer.poll(Duration.ofMillis(Math.min(100, left)));
        // A partition assigned meanwhile is not paused: what it returned comes again later.
        Rewind again = new Rewind();
        again.fetched(stray);
        again.apply(consumer);
        Set<TopicPartition> added = new HashSet<>(consumer.assignment());
        added.removeAll(paused);
        consumer.pause(added);
        paused.addAll(added);
      }
    } finally {
      paused.retainAll(consumer.assignment());
      consumer.resume(paused);
    }
  }

  private Throwable takeTransientFromCallback(Rewind rewind) {
    Throwable failure = transientInCallback;
    transientInCallback = null;
    if (failure != null) {
      rewindAfterCallback.apply(consumer);
    }
    return failure;
  }

  /**
   * The health of the loop, for a service's readiness: {@code WAITING} with the reason while the
   * database is unavailable (records are retried, nothing past them is committed) or the consumer
   * has had no connection to Kafka for a few seconds, {@code RUNNING} otherwise.
   */
  public ServiceHealth health() {
    ServiceHealth database = outage.health();
    String kafka = connection.problem();
    return !database.ready() || kafka == null
        ? database
        : ServiceHealth.waiting("WAITING", kafka, database.since());
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
      if (batchMode && spans.enabled()) {
        spans.settled(result, handler.operationKey(record));
      }
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
    return spans.around(
        record,
        () -> {
          try {
            return RecordResult.of(record, handler.handle(record));
          } catch (RuntimeException e) {
            return RecordResult.failed(record, e);
          }
        });
  }

  /** On the loop's thread, once: what is done is committed, then the consumer closes. */
  private void closeResources() {
    try {
      try {
        if (database != null) {
          database.settle(new Rewind(), this::settle); // what did not settle comes again
        }
      } catch (RuntimeException e) {
        LOG.warn("the last batch did not settle before closing: {}", e.toString());
      }
      commits.commitAllNow();
    } finally {
      try {
        consumer.close();
      } finally {
        if (database != null) {
          database.close();
        }
      }
    }
  }

  private void settleInCallback() {
    Throwable failure =
        database == null ? null : database.settle(rewindAfterCallback, this::settle);
    if (failure != null) {
      transientInCallback = failure;
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
    private OpenTelemetry openTelemetry;

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

    /**
     * Traces each record: a {@code process} span, a child of the context the record carries, with
     * the outcome (a duplicate says so). Without it no span is started.
     */
    public Builder<K, V> openTelemetry(OpenTelemetry openTelemetry) {
      this.openTelemetry = Objects.requireNonNull(openTelemetry, "openTelemetry");
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
