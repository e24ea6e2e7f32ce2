package dev.courier.retry;

import dev.courier.core.CrashPoints;
import dev.courier.core.PollLoop;
import dev.courier.retry.internal.Hop;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.function.Predicate;
import java.util.random.RandomGenerator;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.Deserializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Consumes a main topic and its retry tiers in one group. A failure is classified; a transient one
 * goes to the next tier with its due time in a header, a permanent or exhausted one to the DLT; the
 * next tier or DLT write is acknowledged before the original offset is committed, so a crash never
 * loses a record (it may repeat one, which the idempotent store absorbs). A tier partition whose
 * head record is not due is paused until it is (the loop keeps polling, so the group membership
 * stays healthy) and the due time survives restarts because it travels in the record.
 */
public final class RetryingConsumer<K, V> implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(RetryingConsumer.class);

  private final RetryConfig config;
  private final RetryTopics topics;
  private final Deserializer<K> keys;
  private final Deserializer<V> values;
  private final RecordHandler<K, V> handler;
  private final FailureClassifier classifier;
  private final RetryDecider decider;
  private final RetryBudget budget;
  private final Clock clock;
  private final RetryMetrics metrics;
  private final KafkaConsumer<byte[], byte[]> consumer;
  private final KafkaProducer<byte[], byte[]> producer;
  private final Map<TopicPartition, Instant> pausedUntil = new HashMap<>();
  private final List<Future<RecordMetadata>> forwards = new ArrayList<>();
  private final Map<TopicPartition, Long> waitingSince = new HashMap<>();
  private final String deadlineHeader;
  private final String operationKeyHeader;
  // Written by the loop thread only; volatile so progress() is current from any thread.
  private volatile long calls;
  private volatile long succeeded;
  private volatile long retried;
  private volatile long deadLettered;
  private volatile long budgetWaits;
  private Instant nextDepthCheck = Instant.EPOCH;
  private final PollLoop loop;

  private RetryingConsumer(Builder<K, V> b) {
    this.config = b.config;
    this.topics = new RetryTopics(config.topic(), config.policy().tiers());
    this.keys = b.keys;
    this.values = b.values;
    this.handler = Objects.requireNonNull(b.handler, "handler is required");
    this.classifier = b.classifier != null ? b.classifier : config.classifier().build();
    this.clock = b.clock;
    this.decider = new RetryDecider(config.policy(), b.random);
    this.budget = b.budget != null ? b.budget : config.budget(clock);
    this.metrics = new RetryMetrics(b.registry, config.topic(), topics.tiers());
    this.deadlineHeader = config.getString(RetryConfig.DEADLINE_HEADER);
    this.operationKeyHeader = config.getString(RetryConfig.OPERATION_KEY_HEADER);
    try (Admin admin = Admin.create(config.clientConfig())) {
      topics.create(
          admin,
          config.getLong(RetryConfig.TIER_RETENTION_MS),
          config.getLong(RetryConfig.DLT_RETENTION_MS));
    }
    Map<String, Object> cc = new HashMap<>(config.clientConfig());
    cc.put(ConsumerConfig.GROUP_ID_CONFIG, config.group());
    cc.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    cc.putIfAbsent(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    // A resumed tier partition is fetched with the next request to its broker; a long-polling
    // fetch in flight (default 500 ms) would make every hop that much late.
    cc.putIfAbsent(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, 50);
    this.consumer =
        new KafkaConsumer<>(cc, new ByteArrayDeserializer(), new ByteArrayDeserializer());
    Map<String, Object> pc = new HashMap<>(config.clientConfig());
    pc.put(ProducerConfig.ACKS_CONFIG, "all");
    // Producer retries are Kafka's own (idempotent, no duplicates); they are not attempts.
    pc.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
    // Forwarded records carry about 16 failure headers; at the default 16 KiB batch a burst of
    // failures needed ten times the produce requests of the same records bare.
    pc.putIfAbsent(ProducerConfig.BATCH_SIZE_CONFIG, 256 * 1024);
    this.producer = new KafkaProducer<>(pc, new ByteArraySerializer(), new ByteArraySerializer());
    this.loop =
        new PollLoop(
            consumer,
            () -> {
              consumer.close();
              producer.close();
            });
    LOG.info("{}", contract().render());
  }

  public static <K, V> Builder<K, V> builder(
      Map<String, ?> settings, Deserializer<K> keys, Deserializer<V> values) {
    return new Builder<>(new RetryConfig(settings), keys, values);
  }

  public RetryTopics topics() {
    return topics;
  }

  public RetryContract contract() {
    return RetryContract.of(config, classifier, budget);
  }

  public void run() {
    runUntil(p -> false);
  }

  /** Runs until the condition holds after a poll, or {@link #close()}. */
  public void runUntil(Predicate<RetryProgress> done) {
    loop.run(
        () -> consumer.subscribe(topics.all().subList(0, topics.tiers() + 1), new Forget()),
        () -> done.test(progress()),
        this::pollOnce);
  }

  private void pollOnce() {
    resumeDue();
    ConsumerRecords<byte[], byte[]> records = consumer.poll(pollTimeout());
    for (TopicPartition tp : records.partitions()) {
      handlePartition(tp, records.records(tp));
    }
    updateGauges();
  }

  private void handlePartition(TopicPartition tp, List<ConsumerRecord<byte[], byte[]>> records) {
    long next = -1;
    for (ConsumerRecord<byte[], byte[]> record : records) {
      Optional<Instant> waitUntil = process(record);
      if (waitUntil.isPresent()) {
        consumer.seek(tp, record.offset());
        consumer.pause(List.of(tp));
        pausedUntil.put(tp, waitUntil.get());
        waitingSince.put(tp, record.timestamp());
        break;
      }
      next = record.offset() + 1;
    }
    awaitForwards();
    if (next >= 0) {
      CrashPoints.AFTER_FORWARD_BEFORE_OFFSET_COMMIT.reach();
      consumer.commitSync(Map.of(tp, new OffsetAndMetadata(next)));
    }
  }

  /** Handles one record; returns when to look again if it must wait at its tier. */
  private Optional<Instant> process(ConsumerRecord<byte[], byte[]> record) {
    Instant now = clock.instant();
    int tier = topics.tierOf(record.topic());
    int attempt =
        RetryHeaders.number(record.headers(), RetryHeaders.ATTEMPT).map(Long::intValue).orElse(1);
    Optional<Instant> due =
        tier > 0 ? RetryHeaders.time(record.headers(), RetryHeaders.DUE) : Optional.empty();
    if (due.isPresent() && now.isBefore(due.get())) {
      return due;
    }
    Optional<Instant> deadline = deadline(record);
    Optional<Decision.DeadLetter> expired = decider.beforeAttempt(deadline, now);
    if (expired.isPresent()) {
      deadLetter(
          record, expired.get().reason(), attempt - 1, firstFailure(record, now), null, null, now);
      return Optional.empty();
    }
    if (tier > 0) {
      if (!budget.tryAcquire()) {
        budgetWaits++;
        metrics.budgetWaits.increment();
        return Optional.of(now.plus(budget.untilAvailable()));
      }
      due.ifPresent(d -> metrics.lateness.record(Duration.between(d, now)));
    }
    metrics.attempt(tier);
    calls++;
    try {
      handler.handle(deserialize(record));
      succeeded++;
      metrics.callsPerOperation.record(attempt);
    } catch (Exception e) {
      onFailure(record, attempt, deadline, e);
    }
    return Optional.empty();
  }

  private void onFailure(
      ConsumerRecord<byte[], byte[]> record, int attempt, Optional<Instant> deadline, Exception e) {
    Instant now = clock.instant();
    Classification classification = classifier.classify(e);
    Instant first = firstFailure(record, now);
    Decision decision = decider.afterFailure(attempt, classification, first, deadline, now);
    if (decision instanceof Decision.Retry retry) {
      send(
          Hop.of(
              record,
              topics.tier(retry.tier()),
              config.group(),
              operationKeyHeader,
              new Hop.Failure("retry", retry.attempt(), first, retry.dueAt(), e, classification),
              now,
              config.getInt(RetryConfig.MESSAGE_MAX_CHARS),
              config.getBoolean(RetryConfig.INCLUDE_STACK)));
      retried++;
      LOG.debug(
          "{} attempt {} failed ({}); retry {} due {}",
          coordinates(record),
          attempt,
          e.toString(),
          retry.attempt(),
          retry.dueAt());
    } else {
      deadLetter(
          record,
          ((Decision.DeadLetter) decision).reason(),
          attempt,
          first,
          e,
          classification,
          now);
      metrics.callsPerOperation.record(attempt);
    }
  }

  private void deadLetter(
      ConsumerRecord<byte[], byte[]> record,
      String reason,
      int attempts,
      Instant first,
      Throwable error,
      Classification classification,
      Instant now) {
    send(
        Hop.of(
            record,
            topics.deadLetter(),
            config.group(),
            operationKeyHeader,
            new Hop.Failure(reason, attempts, first, null, error, classification),
            now,
            config.getInt(RetryConfig.MESSAGE_MAX_CHARS),
            config.getBoolean(RetryConfig.INCLUDE_STACK)));
    deadLettered++;
    metrics.deadLettered(reason);
    LOG.warn(
        "{} dead-lettered as '{}' after {} attempt(s): {}",
        coordinates(record),
        reason,
        attempts,
        error == null ? "not executed" : error.toString());
  }

  /** Sends without waiting; {@link #awaitForwards()} runs before the offsets are committed. */
  private void send(ProducerRecord<byte[], byte[]> out) {
    forwards.add(producer.send(out));
  }

  /** Every forward of the batch acknowledged, or no offset is committed (the batch comes again). */
  private void awaitForwards() {
    try {
      for (Future<RecordMetadata> f : forwards) {
        f.get();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while forwarding to the ladder", e);
    } catch (ExecutionException e) {
      throw new IllegalStateException(
          "cannot forward to the ladder: " + e.getCause(), e.getCause());
    } finally {
      forwards.clear();
    }
  }

  private ConsumerRecord<K, V> deserialize(ConsumerRecord<byte[], byte[]> r) {
    String topic = RetryHeaders.text(r.headers(), RetryHeaders.ORIGINAL_TOPIC).orElse(r.topic());
    int partition =
        RetryHeaders.number(r.headers(), RetryHeaders.ORIGINAL_PARTITION)
            .map(Long::intValue)
            .orElse(r.partition());
    long offset = RetryHeaders.number(r.headers(), RetryHeaders.ORIGINAL_OFFSET).orElse(r.offset());
    long timestamp =
        RetryHeaders.number(r.headers(), RetryHeaders.ORIGINAL_TIMESTAMP).orElse(r.timestamp());
    K key = keys.deserialize(topic, r.headers(), r.key());
    V value = values.deserialize(topic, r.headers(), r.value());
    return new ConsumerRecord<>(
        topic,
        partition,
        offset,
        timestamp,
        TimestampType.CREATE_TIME,
        r.serializedKeySize(),
        r.serializedValueSize(),
        key,
        value,
        r.headers(),
        Optional.empty());
  }

  private Optional<Instant> deadline(ConsumerRecord<byte[], byte[]> record) {
    try {
      return RetryHeaders.time(record.headers(), deadlineHeader);
    } catch (RuntimeException e) {
      LOG.warn(
          "{}: unreadable deadline header '{}' ignored: {}",
          coordinates(record),
          deadlineHeader,
          e.getMessage());
      return Optional.empty();
    }
  }

  private static Instant firstFailure(ConsumerRecord<byte[], byte[]> record, Instant now) {
    return RetryHeaders.time(record.headers(), RetryHeaders.FIRST_FAILURE).orElse(now);
  }

  private static String coordinates(ConsumerRecord<?, ?> r) {
    return r.topic() + "-" + r.partition() + "@" + r.offset();
  }

  private void resumeDue() {
    Instant now = clock.instant();
    List<TopicPartition> due = new ArrayList<>();
    pausedUntil.forEach(
        (tp, until) -> {
          if (!now.isBefore(until)) {
            due.add(tp);
          }
        });
    due.forEach(
        tp -> {
          pausedUntil.remove(tp);
          waitingSince.remove(tp);
        });
    if (!due.isEmpty()) {
      consumer.resume(due);
    }
  }

  /** Poll no longer than until the next paused partition is due. */
  private Duration pollTimeout() {
    Duration max = Duration.ofMillis(config.getLong(RetryConfig.POLL_TIMEOUT_MS));
    Instant now = clock.instant();
    for (Instant until : pausedUntil.values()) {
      Duration d = Duration.between(now, until);
      if (d.compareTo(max) < 0) {
        max = d.isNegative() ? Duration.ZERO : d;
      }
    }
    return max;
  }

  private void updateGauges() {
    long now = clock.millis();
    Map<Integer, Long> oldest = new HashMap<>();
    waitingSince.forEach((tp, since) -> oldest.merge(topics.tierOf(tp.topic()), since, Math::min));
    for (int t = 1; t <= topics.tiers(); t++) {
      Long since = oldest.get(t);
      metrics.tierAge(t, Duration.ofMillis(since == null ? 0 : now - since));
    }
    Instant at = clock.instant();
    if (at.isAfter(nextDepthCheck)) {
      nextDepthCheck = at.plusSeconds(30);
      metrics.dltDepth.set(dltDepth());
    }
  }

  private long dltDepth() {
    List<TopicPartition> parts = new ArrayList<>();
    consumer
        .partitionsFor(topics.deadLetter())
        .forEach(p -> parts.add(new TopicPartition(p.topic(), p.partition())));
    Map<TopicPartition, Long> start = consumer.beginningOffsets(parts);
    Map<TopicPartition, Long> end = consumer.endOffsets(parts);
    return parts.stream().mapToLong(tp -> end.get(tp) - start.get(tp)).sum();
  }

  public RetryProgress progress() {
    return new RetryProgress(calls, succeeded, retried, deadLettered, budgetWaits);
  }

  /** Stops the loop (from another thread) or closes the idle consumer and producer. */
  @Override
  public void close() {
    loop.close();
  }

  /** Paused partitions that move to another member start over there; forget their wait here. */
  private final class Forget implements ConsumerRebalanceListener {
    @Override
    public void onPartitionsRevoked(java.util.Collection<TopicPartition> partitions) {
      partitions.forEach(
          tp -> {
            pausedUntil.remove(tp);
            waitingSince.remove(tp);
          });
    }

    @Override
    public void onPartitionsAssigned(java.util.Collection<TopicPartition> partitions) {}
  }

  /** Handler, classifier, clock, jitter source, shared budget and meters. */
  public static final class Builder<K, V> {
    private final RetryConfig config;
    private final Deserializer<K> keys;
    private final Deserializer<V> values;
    private RecordHandler<K, V> handler;
    private FailureClassifier classifier;
    private Clock clock = Clock.systemUTC();
    private RandomGenerator random = new Random();
    private RetryBudget budget;
    private MeterRegistry registry = new SimpleMeterRegistry();

    private Builder(RetryConfig config, Deserializer<K> keys, Deserializer<V> values) {
      this.config = config;
      this.keys = Objects.requireNonNull(keys, "keys");
      this.values = Objects.requireNonNull(values, "values");
    }

    public Builder<K, V> handler(RecordHandler<K, V> handler) {
      this.handler = handler;
      return this;
    }

    public Builder<K, V> classifier(FailureClassifier classifier) {
      this.classifier = classifier;
      return this;
    }

    public Builder<K, V> clock(Clock clock) {
      this.clock = Objects.requireNonNull(clock);
      return this;
    }

    public Builder<K, V> random(RandomGenerator random) {
      this.random = Objects.requireNonNull(random);
      return this;
    }

    /** A budget shared with the consumer's other workers (default: one of its own). */
    public Builder<K, V> budget(RetryBudget budget) {
      this.budget = budget;
      return this;
    }

    public Builder<K, V> meterRegistry(MeterRegistry registry) {
      this.registry = Objects.requireNonNull(registry);
      return this;
    }

    public RetryingConsumer<K, V> build() {
      return new RetryingConsumer<>(this);
    }
  }
}
