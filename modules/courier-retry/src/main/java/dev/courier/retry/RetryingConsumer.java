package dev.courier.retry;

import dev.courier.core.internal.Traces;
import dev.courier.retry.internal.HandlerCalls;
import dev.courier.retry.internal.KeyChains;
import dev.courier.retry.internal.KeyOrder;
import dev.courier.retry.internal.LadderLoop;
import dev.courier.retry.internal.LadderProgress;
import dev.courier.retry.internal.LadderPublisher;
import dev.courier.retry.internal.LadderSetup;
import dev.courier.retry.internal.LadderTracing;
import dev.courier.retry.internal.OrderMetrics;
import dev.courier.retry.internal.Outcomes;
import dev.courier.retry.internal.RetryDecider;
import dev.courier.retry.internal.RetryMetrics;
import dev.courier.retry.internal.Shutdown;
import dev.courier.retry.internal.StepDecider;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Metrics;
import io.opentelemetry.api.OpenTelemetry;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Random;
import java.util.function.Predicate;
import java.util.random.RandomGenerator;
import org.apache.kafka.common.serialization.Deserializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Consumes a main topic and its retry tiers in one group. A failure is classified; a transient one
 * goes to the next tier with its due time in a header, a permanent or exhausted one to the DLT; the
 * next tier or DLT write is acknowledged before the original offset is committed, so a crash never
 * loses a record (it may repeat one, which the idempotent store absorbs). A tier partition whose
 * head record is not due is paused until it is, its fetched records held in memory to run the
 * moment they fall due; the due time survives restarts because it travels in the record.
 *
 * <p>Deployed as several instances in one group, it keeps its membership whatever the handler does:
 * each call runs on a handler thread within {@code retry.handler.timeout.ms} while this loop pauses
 * its partitions and keeps polling. The calls of a partition's records that can run now go to that
 * thread together, as a run, and are settled in record order. A revocation cancels the calls not
 * started, waits for those started, settles them and commits before the partitions move, so a
 * rebalance repeats nothing. On {@link #close()} it takes no new record, gives the calls started
 * {@code retry.shutdown.timeout.ms}, commits what is done and leaves the group at once. Courier's
 * headers are parsed once per record; a record whose headers do not parse goes to the DLT as {@code
 * malformed-headers} and the loop goes on.
 *
 * <p>Building one touches nothing: {@link #start()} (or the first {@link #run()}) creates the
 * ladder's topics, its clients and its DLT depth probe.
 */
public final class RetryingConsumer<K, V> implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(RetryingConsumer.class);

  private final RetryConfig config;
  private final RetryTopics topics;
  private final Builder<K, V> parts;
  private final FailureClassifier classifier;
  private final RetryBudget budget;
  private final RetryMetrics metrics;
  private final LadderProgress progress = new LadderProgress();
  private final Shutdown shutdown = new Shutdown();
  private volatile LadderLoop<K, V> loop;
  private boolean closedBeforeStart;

  private RetryingConsumer(Builder<K, V> b) {
    this.config = b.config;
    this.parts = b;
    this.topics = config.topics();
    Objects.requireNonNull(b.handler, "handler is required");
    this.classifier = b.classifier != null ? b.classifier : config.classifier().build();
    this.budget = b.budget != null ? b.budget : config.budget(b.clock);
    this.metrics = new RetryMetrics(b.registry, config.group(), config.topic(), topics.tiers());
  }

  /**
   * A consumer of the main topic {@code retry.topic} and its ladder.
   *
   * @param settings the {@link RetryConfig} keys, {@code bootstrap.servers} and {@code kafka.*}
   * @throws org.apache.kafka.common.config.ConfigException naming a bad or missing setting
   */
  public static <K, V> Builder<K, V> builder(
      Map<String, ?> settings, Deserializer<K> keys, Deserializer<V> values) {
    return new Builder<>(new RetryConfig(settings), keys, values);
  }

  /** The names of this consumer's main topic, tiers and DLT. */
  public RetryTopics topics() {
    return topics;
  }

  /**
   * The topics this consumer reads: the main topic, its tiers, and tiers left to drain (found at
   * {@link #start()}; empty before).
   */
  public synchronized List<String> subscribed() {
    return loop == null ? List.of() : loop.subscribed();
  }

  public RetryContract contract() {
    return RetryContract.of(config, classifier, budget);
  }

  /**
   * Creates the ladder's topics (the tiers and the DLT, like the main topic), its consumer and
   * producer, and starts counting the DLT's depth. Called by {@link #run()} if not before; call it
   * first to fail at once on a wrong setting or a principal that may not create the topics.
   *
   * @throws org.apache.kafka.common.config.ConfigException naming the setting: the main topic does
   *     not exist, or the principal may not create the ladder's topics
   */
  public synchronized void start() {
    if (loop != null || closedBeforeStart) {
      return;
    }
    LadderLoop.Parts made = LadderSetup.start(config, topics, metrics, progress, parts.clock);
    LadderPublisher publisher = made.publisher();
    RetryDecider rules = new RetryDecider(config.policy(), parts.random);
    Outcomes outcomes = new Outcomes(publisher, classifier, rules, metrics, progress, parts.clock);
    if (parts.openTelemetry != null) {
      outcomes.tracing(new LadderTracing(Traces.of(parts.openTelemetry), config.group()));
    }
    KeyOrder order = null;
    if (made.chainStore() != null) {
      order =
          new KeyOrder(
              new KeyChains(
                  config.getInt(RetryConfig.ORDERING_MAX_BLOCKED_KEYS),
                  config.getInt(RetryConfig.ORDERING_MAX_WAITING_RECORDS)),
              made.chainStore(),
              publisher,
              topics,
              new KeyOrder.Settings(
                  config.waitingOnDeadLetter(),
                  config.orderingOverflow(),
                  config.getString(RetryConfig.OPERATION_KEY_HEADER),
                  // A record's dead letter follows the last commit before it by at most a run's
                  // call and a commit interval.
                  config.handlerTimeout().plus(config.commitInterval())),
              new OrderMetrics(parts.registry, config.group(), config.topic(), metrics, progress),
              parts.clock);
      outcomes.order(order);
    }
    loop =
        new LadderLoop<>(
            made,
            topics,
            parts.keys,
            parts.values,
            parts.handler,
            new StepDecider(
                config.policy().maxAttempts(),
                rules,
                budget,
                config.getString(RetryConfig.OPERATION_KEY_HEADER)),
            outcomes,
            new HandlerCalls(config.group(), config.handlerTimeout(), parts.clock),
            progress,
            shutdown,
            parts.clock,
            new LadderLoop.Settings(
                config.getString(RetryConfig.OPERATION_KEY_HEADER),
                config.getString(RetryConfig.DEADLINE_HEADER),
                Duration.ofMillis(config.getLong(RetryConfig.POLL_TIMEOUT_MS)),
                config.commitInterval(),
                config.handlerTimeout()),
            order);
    LOG.info("{}", contract().render());
  }

  /** Runs until {@link #close()}. */
  public void run() {
    runUntil(p -> false);
  }

  /**
   * Runs until the condition holds after a poll, or {@link #close()}; starts the consumer first if
   * {@link #start()} was not called.
   *
   * @throws Error what the handler threw when it was an {@link Error}: the loop stops (what was
   *     done is committed) rather than go on in a JVM that may be broken
   */
  public void runUntil(Predicate<RetryProgress> done) {
    LadderLoop<K, V> running;
    synchronized (this) {
      start();
      running = loop;
    }
    if (running != null) {
      running.runUntil(done);
    }
  }

  public RetryProgress progress() {
    return progress.snapshot();
  }

  /**
   * Records in the DLT ({@code courier_retry_dlt_depth}) as the consumer's probe last counted them,
   * or -1 from its start to its first count (0 before it started).
   */
  public long dltDepth() {
    return metrics.dltDepth.get();
  }

  /**
   * When {@link #dltDepth()} was counted (every 30 s, on the probe's own thread), empty before the
   * first count: a dead letter written since is not in it yet.
   */
  public Optional<Instant> dltDepthCountedAt() {
    return Optional.ofNullable(metrics.dltDepthCountedAt.get());
  }

  /**
   * Why the consumer cannot do its work now (e.g. no connection to Kafka for a few seconds), or
   * empty while it can or has not started; for a service's readiness.
   */
  public Optional<String> problem() {
    LadderLoop<K, V> running = loop;
    return running == null ? Optional.empty() : Optional.ofNullable(running.problem());
  }

  /**
   * Stops the loop from another thread: no new record is taken, the call in flight gets {@code
   * retry.shutdown.timeout.ms}, what is done is committed, and the consumer leaves its group. The
   * caller waits for {@link #run()} to return.
   */
  @Override
  public void close() {
    shutdown.request(parts.clock.instant().plus(config.shutdownTimeout()));
    LadderLoop<K, V> running;
    synchronized (this) {
      running = loop;
      closedBeforeStart = running == null;
    }
    if (running != null) {
      running.close();
    }
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
    private MeterRegistry registry = Metrics.globalRegistry;
    private OpenTelemetry openTelemetry;

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

    /**
     * Traces every attempt: a {@code process} span per handler call, a child of the context the
     * record carries, current while the handler runs; each hop to a tier or the DLT carries the
     * attempt's context as its one {@code traceparent}. Without it no span is started and hops keep
     * the {@code traceparent} they arrived with.
     */
    public Builder<K, V> openTelemetry(OpenTelemetry openTelemetry) {
      this.openTelemetry = Objects.requireNonNull(openTelemetry);
      return this;
    }

    /** A consumer that has touched nothing yet: see {@link RetryingConsumer#start()}. */
    public RetryingConsumer<K, V> build() {
      return new RetryingConsumer<>(this);
    }
  }
}
