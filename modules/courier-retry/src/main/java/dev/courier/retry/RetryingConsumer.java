package dev.courier.retry;

import dev.courier.core.CrashPoints;
import dev.courier.core.PollLoop;
import dev.courier.retry.internal.Commits;
import dev.courier.retry.internal.DltDepthProbe;
import dev.courier.retry.internal.HandlerCalls;
import dev.courier.retry.internal.Hop;
import dev.courier.retry.internal.LadderRead;
import dev.courier.retry.internal.LadderState;
import dev.courier.retry.internal.Malformed;
import dev.courier.retry.internal.TierWaits;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Metrics;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.function.Predicate;
import java.util.random.RandomGenerator;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
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
 */
public final class RetryingConsumer<K, V> implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(RetryingConsumer.class);

  /** How long a fast call is awaited before the partitions are paused for a slow one. */
  private static final Duration FIRST_WAIT = Duration.ofMillis(20);

  /** How often the loop polls (to stay in the group) while a call runs. */
  private static final Duration BUSY_POLL = Duration.ofMillis(100);

  private final RetryConfig config;
  private final RetryTopics topics;
  private final List<String> subscribed;
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
  private final HandlerCalls calls;
  private final TierWaits waits;
  private final Commits commits;
  private final DltDepthProbe depth;
  private final List<Future<RecordMetadata>> forwards = new ArrayList<>();

  /** Partitions paused only while a handler call runs (not those waiting for a due time). */
  private final Set<TopicPartition> pausedForCall = new HashSet<>();

  /** Partitions taken away while the current poll's records were being handled. */
  private final Set<TopicPartition> revokedInBatch = new HashSet<>();

  private final String deadlineHeader;
  private final String operationKeyHeader;
  // Settings read on every record, resolved once (each lookup parsed and allocated).
  private final int maxAttempts;
  private final Duration commitInterval;
  private final Duration pollTimeout;
  private final String group;
  private final int messageMaxChars;
  private final boolean includeStack;
  private final PollLoop loop;

  /** The run whose call the loop waits for while it keeps polling, if any. */
  private Run inFlight;

  private volatile Instant shutdownDeadline;
  // Written by the loop thread only; volatile so progress() is current from any thread.
  private volatile long handlerCalls;
  private volatile long succeeded;
  private volatile long retried;
  private volatile long deadLettered;
  private volatile long budgetWaits;

  /** What one record needs, decided before its run is handed to the handler thread. */
  private sealed interface Step permits Wait, Decided, Callable {}

  /** Not due yet (or no retry budget): the record and those after it wait at their tier. */
  private record Wait(Instant due) implements Step {}

  /** Settled without a call (dead-lettered, or refused before the handler), in its turn. */
  private record Decided(Runnable settle) implements Step {}

  /** A handler call; {@code typed} is the record as the handler gets it. */
  private record Callable(LadderState state, ConsumerRecord<?, ?> typed, int tier)
      implements Step {}

  /**
   * Consecutive records of one partition whose calls went to the handler thread together, settled
   * in order: a record is done (and its offset may be committed) only once every record before it
   * is.
   */
  private static final class Run {
    final TopicPartition tp;
    final List<ConsumerRecord<byte[], byte[]>> records;
    final List<Step> steps;
    final List<HandlerCalls.Call> calls;

    /** The next step to settle, and the call of the next Callable step. */
    int next;

    int nextCall;

    /** Settled as far as it goes by a rebalance callback while the loop waited for a call. */
    boolean finished;

    Run(
        TopicPartition tp,
        List<ConsumerRecord<byte[], byte[]>> records,
        List<Step> steps,
        List<HandlerCalls.Call> calls) {
      this.tp = tp;
      this.records = records;
      this.steps = steps;
      this.calls = calls;
    }

    ConsumerRecord<byte[], byte[]> record() {
      return records.get(next);
    }

    HandlerCalls.Call call() {
      return calls.get(nextCall);
    }

    /** No call of the run from the next one on that has not started yet will start. */
    void cancelRest() {
      if (nextCall < calls.size()) {
        calls.get(nextCall).cancelFromHere();
      }
    }
  }

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
    this.maxAttempts = config.policy().maxAttempts();
    this.commitInterval = config.commitInterval();
    this.pollTimeout = Duration.ofMillis(config.getLong(RetryConfig.POLL_TIMEOUT_MS));
    this.group = config.group();
    this.messageMaxChars = config.getInt(RetryConfig.MESSAGE_MAX_CHARS);
    this.includeStack = config.getBoolean(RetryConfig.INCLUDE_STACK);
    List<String> drain;
    try (Admin admin = Admin.create(config.clients().admin())) {
      topics.create(
          admin,
          config.getLong(RetryConfig.TIER_RETENTION_MS),
          config.getLong(RetryConfig.DLT_RETENTION_MS));
      drain = topics.drainTiers(admin);
    }
    List<String> read = new ArrayList<>(topics.all().subList(0, topics.tiers() + 1));
    read.addAll(drain);
    this.subscribed = List.copyOf(read);
    if (!drain.isEmpty()) {
      LOG.info(
          "reading {} too: they are above retry.max.attempts={} and are drained to {}",
          drain,
          config.policy().maxAttempts(),
          topics.deadLetter());
    }
    Map<String, Object> cc = config.clients().consumer();
    cc.put(ConsumerConfig.GROUP_ID_CONFIG, config.group());
    cc.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    cc.putIfAbsent(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    // A resumed tier partition is fetched with the next request to its broker; a long-polling
    // fetch in flight (default 500 ms) would make every hop that much late.
    cc.putIfAbsent(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, 50);
    this.waits =
        new TierWaits(
            Duration.ofMillis(2L * intSetting(cc, ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, 50)),
            4
                * intSetting(
                    cc,
                    ConsumerConfig.MAX_POLL_RECORDS_CONFIG,
                    ConsumerConfig.DEFAULT_MAX_POLL_RECORDS));
    this.consumer =
        new KafkaConsumer<>(cc, new ByteArrayDeserializer(), new ByteArrayDeserializer());
    Map<String, Object> pc = config.clients().producer();
    pc.put(ProducerConfig.ACKS_CONFIG, "all");
    // Producer retries are Kafka's own (idempotent, no duplicates); they are not attempts.
    pc.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
    // Forwarded records carry about 16 failure headers; at the default 16 KiB batch a burst of
    // failures needed ten times the produce requests of the same records bare.
    pc.putIfAbsent(ProducerConfig.BATCH_SIZE_CONFIG, 256 * 1024);
    this.producer = new KafkaProducer<>(pc, new ByteArraySerializer(), new ByteArraySerializer());
    this.calls = new HandlerCalls(config.group(), config.handlerTimeout(), clock);
    this.commits =
        new Commits(consumer, this::beforeCommit, metrics.commitsRefused::increment, clock);
    this.depth =
        new DltDepthProbe(config.clients().admin(), topics.deadLetter(), metrics.dltDepth)
            .start(Duration.ofSeconds(30));
    this.loop = new PollLoop(consumer, this::closeResources);
    LOG.info("{}", contract().render());
  }

  /** A client setting as given (a number or its text; validated when the client starts). */
  private static int intSetting(Map<String, Object> clientConfig, String key, int otherwise) {
    Object v = clientConfig.get(key);
    return v == null ? otherwise : Integer.parseInt(String.valueOf(v).trim());
  }

  public static <K, V> Builder<K, V> builder(
      Map<String, ?> settings, Deserializer<K> keys, Deserializer<V> values) {
    return new Builder<>(new RetryConfig(settings), keys, values);
  }

  public RetryTopics topics() {
    return topics;
  }

  /** The topics this consumer reads: the main topic, its tiers, and tiers left to drain. */
  public List<String> subscribed() {
    return subscribed;
  }

  public RetryContract contract() {
    return RetryContract.of(config, classifier, budget);
  }

  public void run() {
    runUntil(p -> false);
  }

  /**
   * Runs until the condition holds after a poll, or {@link #close()}.
   *
   * @throws Error what the handler threw when it was an {@link Error}: the loop stops (what was
   *     done is committed) rather than go on in a JVM that may be broken
   */
  public void runUntil(Predicate<RetryProgress> done) {
    loop.run(
        () -> consumer.subscribe(subscribed, new Rebalance()),
        () -> done.test(progress()),
        this::pollOnce);
  }

  private void pollOnce() {
    revokedInBatch.clear();
    runDueHeld();
    fetchAhead();
    ConsumerRecords<byte[], byte[]> records =
        consumer.poll(waits.pollTimeout(pollTimeout, clock.instant()));
    revokedInBatch.clear();
    for (TopicPartition tp : records.partitions()) {
      if (loop.stopping()) {
        break;
      }
      if (waits.waiting(tp)) {
        waits.append(tp, records.records(tp)); // fetched ahead, behind what it holds
      } else {
        handlePartition(tp, records.records(tp));
      }
    }
    commits.commitAsync();
    updateGauges();
  }

  /**
   * Runs the held records whose wait is over, then resumes each partition that has none left, so a
   * hop is as late as the loop's wake-up and not a fetch round trip.
   */
  private void runDueHeld() {
    var due = waits.takeDue(clock.instant());
    due.forEach(
        (tp, held) -> {
          // Not settled (stopping, revoked): left paused, and a partition assigned again comes
          // back unpaused at its committed offset.
          if (handlePartition(tp, held)
              && !waits.waiting(tp)
              && consumer.assignment().contains(tp)) {
            consumer.resume(List.of(tp));
          }
        });
  }

  /** Fetches each waiting partition whose held records fall due soon, and pauses the others. */
  private void fetchAhead() {
    Instant now = clock.instant();
    Set<TopicPartition> paused = consumer.paused();
    Set<TopicPartition> owned = consumer.assignment();
    List<TopicPartition> resume = new ArrayList<>();
    List<TopicPartition> pause = new ArrayList<>();
    for (TopicPartition tp : waits.partitions()) {
      if (!owned.contains(tp)) {
        continue;
      }
      boolean fetch = waits.fetchAhead(tp, now);
      if (fetch && paused.contains(tp)) {
        resume.add(tp);
      } else if (!fetch && !paused.contains(tp)) {
        pause.add(tp);
      }
    }
    consumer.resume(resume);
    consumer.pause(pause);
  }

  /**
   * Handles a partition's records in order until one must wait: the records before it go to the
   * handler thread as one run and are settled in order.
   *
   * @return true when every record is done or held for its due time; false when the loop stopped or
   *     the partition went away first
   */
  private boolean handlePartition(TopicPartition tp, List<ConsumerRecord<byte[], byte[]>> records) {
    int from = 0;
    while (from < records.size()) {
      // A revoked partition's records are its new owner's; a reassigned one is fetched again
      // from the committed offset.
      if (loop.stopping() || revokedInBatch.contains(tp)) {
        return false;
      }
      Instant now = clock.instant();
      List<Step> steps = new ArrayList<>();
      Instant waitUntil = null;
      int end = from;
      for (; end < records.size(); end++) {
        Step step = prepare(records.get(end), now);
        if (step instanceof Wait wait) {
          waitUntil = wait.due();
          break;
        }
        steps.add(step);
        if (commitInterval.isZero() && step instanceof Callable) {
          // Committing every record promises that a kill repeats at most the one in flight: the
          // handler thread must not run ahead while the loop commits the one before.
          end++;
          break;
        }
      }
      Run run = start(tp, records.subList(from, end), steps);
      Settled settled = settleRun(run);
      if (settled == Settled.NOT_DONE) {
        return false;
      }
      if (settled == Settled.BROKEN) {
        from += run.next; // a call timed out and took the rest of its run with it: prepare again
        continue;
      }
      if (waitUntil != null) {
        consumer.pause(List.of(tp));
        waits.hold(tp, waitUntil, records.subList(end, records.size()));
        return true;
      }
      from = end;
    }
    return true;
  }

  /** How a run ended. */
  private enum Settled {
    /** Every record of it is done. */
    DONE,
    /** Done up to a call that timed out; the records after it were not called and must be again. */
    BROKEN,
    /** Stopped (shutdown, revocation): what is done is done, the rest is the next owner's. */
    NOT_DONE
  }

  @SuppressWarnings("unchecked")
  private Run start(
      TopicPartition tp, List<ConsumerRecord<byte[], byte[]>> records, List<Step> steps) {
    List<HandlerCalls.Work> works = new ArrayList<>();
    for (Step step : steps) {
      if (step instanceof Callable c) {
        ConsumerRecord<K, V> typed = (ConsumerRecord<K, V>) c.typed();
        works.add(() -> handler.handle(typed));
      }
    }
    return new Run(tp, records, steps, works.isEmpty() ? List.of() : calls.startAll(works));
  }

  /**
   * Decides what a record needs; dead letters are not sent here but when the record's turn comes,
   * so offsets and effects stay in record order.
   */
  private Step prepare(ConsumerRecord<byte[], byte[]> record, Instant now) {
    int tier = topics.tierOf(record.topic());
    LadderRead read = LadderState.read(record, tier, operationKeyHeader, deadlineHeader);
    if (read instanceof Malformed malformed) {
      LadderState state = LadderState.of(record, operationKeyHeader);
      return new Decided(
          () ->
              deadLetter(
                  record,
                  state,
                  Decision.DeadLetter.MALFORMED,
                  0,
                  null,
                  malformed.describe(),
                  null,
                  now));
    }
    LadderState state = (LadderState) read;
    if (state.attempt() > maxAttempts) {
      String why =
          "not executed: it waited in "
              + record.topic()
              + " for attempt "
              + state.attempt()
              + ", above retry.max.attempts="
              + maxAttempts;
      return new Decided(
          () ->
              deadLetter(
                  record,
                  state,
                  Decision.DeadLetter.ATTEMPTS,
                  state.attempt() - 1,
                  null,
                  why,
                  null,
                  now));
    }
    if (state.due().isPresent() && now.isBefore(state.due().get())) {
      return new Wait(state.due().get());
    }
    Optional<Decision.DeadLetter> expired = decider.beforeAttempt(state.deadline(), now);
    if (expired.isPresent()) {
      return new Decided(
          () ->
              deadLetter(
                  record,
                  state,
                  expired.get().reason(),
                  state.attempt() - 1,
                  null,
                  null,
                  null,
                  now));
    }
    if (tier > 0) {
      if (!budget.tryAcquire()) {
        budgetWaits++;
        metrics.budgetWaits.increment();
        return new Wait(now.plus(budget.untilAvailable()));
      }
      state.due().ifPresent(d -> metrics.lateness.record(Duration.between(d, now)));
    }
    try {
      return new Callable(state, deserialize(record, state), tier);
    } catch (RuntimeException e) {
      return new Decided(
          () -> {
            countCall(tier);
            settle(record, state, new HandlerCalls.Result(Optional.of(e)));
          });
    }
  }

  private void countCall(int tier) {
    metrics.attempt(tier);
    handlerCalls++;
  }

  /**
   * Settles a run's records in order; while a call runs long, the partitions are paused and the
   * loop keeps polling so the member stays in its group and takes part in rebalances.
   */
  private Settled settleRun(Run run) {
    boolean leftCleanly = false;
    try {
      while (run.next < run.steps.size()) {
        if (loop.stopping()) {
          run.cancelRest();
          settleStarted(run, shutdownDeadline);
          leftCleanly = true;
          return Settled.NOT_DONE;
        }
        if (revokedInBatch.contains(run.tp)) {
          run.cancelRest();
          leftCleanly = true;
          return Settled.NOT_DONE;
        }
        Step step = run.steps.get(run.next);
        if (step instanceof Decided decided) {
          decided.settle().run();
          done(run);
          continue;
        }
        Callable callable = (Callable) step;
        Optional<HandlerCalls.Result> result = run.call().await(FIRST_WAIT);
        if (result.isPresent()) {
          countCall(callable.tier());
          settle(run.record(), callable.state(), result.get());
          run.nextCall++;
          done(run);
          continue;
        }
        Settled slow = awaitSlowCall(run, callable);
        if (slow != Settled.DONE) {
          leftCleanly = true;
          return slow;
        }
      }
      leftCleanly = true;
      return Settled.DONE;
    } finally {
      if (!leftCleanly) {
        run.cancelRest(); // an Error on the way out: no call of the run may start after it
      }
    }
  }

  /** The record at {@code run.next} is done: its offset may be committed. */
  private void done(Run run) {
    commits.done(run.tp, run.record().offset() + 1);
    run.next++;
    if (commits.due(commitInterval)) {
      commits.commit();
    }
  }

  /**
   * Waits for a call that did not end within {@link #FIRST_WAIT}, polling meanwhile with every
   * partition paused.
   *
   * @return DONE when it is settled and the run goes on; BROKEN when it timed out (settled as a
   *     timeout, the rest of its run cancelled); NOT_DONE when it was abandoned or a rebalance
   *     callback settled the run
   */
  private Settled awaitSlowCall(Run run, Callable callable) {
    HandlerCalls.Call call = run.call();
    ConsumerRecord<byte[], byte[]> record = run.record();
    inFlight = run;
    pauseForCall(consumer.assignment());
    try {
      while (!run.finished) {
        Optional<HandlerCalls.Result> result = call.await(BUSY_POLL);
        if (result.isPresent()) {
          countCall(callable.tier());
          settle(record, callable.state(), result.get());
          run.nextCall++;
          done(run);
          return Settled.DONE;
        }
        if (call.expired()) {
          countCall(callable.tier());
          settle(record, callable.state(), call.abandon(timeoutMessage(record)));
          run.nextCall++;
          done(run);
          return run.next < run.steps.size() ? Settled.BROKEN : Settled.DONE;
        }
        if (shuttingDownPast()) {
          call.abandon("shutting down");
          LOG.warn("{} abandoned at shutdown; its next owner redoes it", coordinates(record));
          return Settled.NOT_DONE;
        }
        pollWhileBusy();
      }
      return Settled.NOT_DONE; // settled (and committed) or abandoned by a rebalance callback
    } finally {
      inFlight = null;
      resumeAfterCall();
    }
  }

  /**
   * With the rest of its run cancelled, settles the run's steps from {@code run.next} on as long as
   * their calls started (each gets its own limit, and no longer than {@code deadline}): a call that
   * ran is not left for the next owner to repeat.
   */
  private void settleStarted(Run run, Instant deadline) {
    while (run.next < run.steps.size()) {
      Step step = run.steps.get(run.next);
      if (step instanceof Decided decided) {
        decided.settle().run();
        done(run);
        continue;
      }
      HandlerCalls.Call call = run.call();
      if (!call.started()) {
        return;
      }
      Duration wait = call.remaining();
      if (deadline != null) {
        Duration left = Duration.between(clock.instant(), deadline);
        wait = left.compareTo(wait) < 0 ? left : wait;
      }
      Optional<HandlerCalls.Result> result = call.await(wait);
      if (result.isEmpty()) {
        call.abandon("stopping");
        LOG.warn("{} abandoned; its next owner redoes it", coordinates(run.record()));
        return;
      }
      countCall(((Callable) step).tier());
      settle(run.record(), ((Callable) step).state(), result.get());
      run.nextCall++;
      done(run);
    }
  }

  private String timeoutMessage(ConsumerRecord<?, ?> record) {
    return "handler did not finish "
        + coordinates(record)
        + " within "
        + RetryConfig.HANDLER_TIMEOUT_MS
        + "="
        + calls.timeout().toMillis();
  }

  /** Keeps the membership alive; every partition is paused, so no record comes back. */
  private void pollWhileBusy() {
    ConsumerRecords<byte[], byte[]> stray;
    try {
      stray = consumer.poll(Duration.ZERO);
    } catch (WakeupException e) {
      if (!loop.stopping()) {
        throw e;
      }
      return; // close() woke us: the call gets until the shutdown deadline
    }
    // Defensive: a partition that slipped through unpaused is rewound, so nothing is skipped.
    for (TopicPartition tp : stray.partitions()) {
      consumer.seek(tp, stray.records(tp).get(0).offset());
      pauseForCall(List.of(tp));
    }
  }

  /** Pauses those not paused yet (a waiting partition may be, or be fetched ahead). */
  private void pauseForCall(Collection<TopicPartition> partitions) {
    Set<TopicPartition> paused = consumer.paused();
    List<TopicPartition> pause = new ArrayList<>();
    for (TopicPartition tp : partitions) {
      if (!paused.contains(tp) && pausedForCall.add(tp)) {
        pause.add(tp);
      }
    }
    consumer.pause(pause);
  }

  /** Resumes what the call paused; waiting partitions are paused again before the next poll. */
  private void resumeAfterCall() {
    Set<TopicPartition> owned = consumer.assignment();
    List<TopicPartition> resume = pausedForCall.stream().filter(owned::contains).toList();
    pausedForCall.clear();
    consumer.resume(resume);
  }

  private boolean shuttingDownPast() {
    Instant deadline = shutdownDeadline;
    return deadline != null && !clock.instant().isBefore(deadline);
  }

  /** What a finished (or abandoned-for-time) call means for the record. */
  private void settle(
      ConsumerRecord<byte[], byte[]> record, LadderState state, HandlerCalls.Result result) {
    if (result.succeeded()) {
      succeeded++;
      metrics.callsPerOperation.record(state.attempt());
      return;
    }
    Throwable failure = result.failure().get();
    if (failure instanceof Error error) {
      LOG.error(
          "{}: the handler threw {}; stopping (what is done is committed)",
          coordinates(record),
          error.toString());
      throw error;
    }
    if (failure instanceof HandlerTimeoutException) {
      metrics.handlerTimeouts.increment();
    }
    onFailure(record, state, (Exception) failure);
  }

  private void onFailure(ConsumerRecord<byte[], byte[]> record, LadderState state, Exception e) {
    Instant now = clock.instant();
    Classification classification = classifier.classify(e);
    Instant first = state.firstFailure().orElse(now);
    Decision decision =
        decider.afterFailure(state.attempt(), classification, first, state.deadline(), now);
    if (decision instanceof Decision.Retry retry) {
      send(
          Hop.of(
              record,
              state,
              topics.tier(retry.tier()),
              group,
              new Hop.Failure(
                  "retry", retry.attempt(), first, retry.dueAt(), e, null, classification),
              now,
              messageMaxChars,
              includeStack));
      retried++;
      LOG.debug(
          "{} attempt {} failed ({}); retry {} due {}",
          coordinates(record),
          state.attempt(),
          e.toString(),
          retry.attempt(),
          retry.dueAt());
    } else {
      String reason = ((Decision.DeadLetter) decision).reason();
      deadLetter(record, state, reason, state.attempt(), e, null, classification, now);
      metrics.callsPerOperation.record(state.attempt());
    }
  }

  private void deadLetter(
      ConsumerRecord<byte[], byte[]> record,
      LadderState state,
      String reason,
      int attempts,
      Throwable error,
      String message,
      Classification classification,
      Instant now) {
    send(
        Hop.of(
            record,
            state,
            topics.deadLetter(),
            group,
            new Hop.Failure(
                reason,
                attempts,
                state.firstFailure().orElse(now),
                null,
                error,
                message,
                classification),
            now,
            messageMaxChars,
            includeStack));
    deadLettered++;
    metrics.deadLettered(reason);
    LOG.warn(
        "{} dead-lettered as '{}' after {} attempt(s): {}",
        coordinates(record),
        reason,
        attempts,
        message != null ? message : error == null ? "not executed" : error.toString());
  }

  /** Sends without waiting; every forward is acknowledged before any offset is committed. */
  private void send(ProducerRecord<byte[], byte[]> out) {
    forwards.add(producer.send(out));
  }

  private void beforeCommit() {
    awaitForwards();
    CrashPoints.AFTER_FORWARD_BEFORE_OFFSET_COMMIT.reach();
  }

  /** Every forward acknowledged, or no offset is committed (the records come again). */
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

  private ConsumerRecord<K, V> deserialize(ConsumerRecord<byte[], byte[]> r, LadderState state) {
    K key = keys.deserialize(state.originalTopic(), r.headers(), r.key());
    V value = values.deserialize(state.originalTopic(), r.headers(), r.value());
    return new ConsumerRecord<>(
        state.originalTopic(),
        state.originalPartition(),
        state.originalOffset(),
        state.originalTimestamp(),
        TimestampType.CREATE_TIME,
        r.serializedKeySize(),
        r.serializedValueSize(),
        key,
        value,
        r.headers(),
        Optional.empty());
  }

  private static String coordinates(ConsumerRecord<?, ?> r) {
    return r.topic() + "-" + r.partition() + "@" + r.offset();
  }

  private void updateGauges() {
    long now = clock.millis();
    Map<Integer, Long> oldest = waits.oldestByTier(topics::tierOf);
    for (int t = 1; t <= topics.tiers(); t++) {
      Long since = oldest.get(t);
      metrics.tierAge(t, Duration.ofMillis(since == null ? 0 : now - since));
    }
  }

  public RetryProgress progress() {
    return new RetryProgress(handlerCalls, succeeded, retried, deadLettered, budgetWaits);
  }

  /**
   * Stops the loop from another thread: no new record is taken, the call in flight gets {@code
   * retry.shutdown.timeout.ms}, what is done is committed, and the consumer leaves its group. The
   * caller waits for {@link #run()} to return.
   */
  @Override
  public void close() {
    shutdownDeadline = clock.instant().plus(config.shutdownTimeout());
    loop.close();
  }

  /** On the loop's thread, once: commit what is done, then leave the group at once. */
  private void closeResources() {
    try {
      commits.commit();
    } catch (RuntimeException e) {
      LOG.warn("final commit failed: {}", e.toString());
    }
    try {
      consumer.close(
          CloseOptions.groupMembershipOperation(CloseOptions.GroupMembershipOperation.LEAVE_GROUP)
              .withTimeout(Duration.ofSeconds(5)));
    } finally {
      producer.close(Duration.ofSeconds(5));
      calls.close();
      depth.close();
    }
  }

  /**
   * Commits what is done in partitions being taken away, after settling the call in flight if it is
   * one of theirs (it gets until its own time limit, or the shutdown deadline), so a rebalance
   * repeats nothing; the records after it are left to the new owner.
   */
  private final class Rebalance implements ConsumerRebalanceListener {
    @Override
    public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
      revokedInBatch.addAll(partitions);
      Run run = inFlight;
      if (run != null && !run.finished && partitions.contains(run.tp)) {
        run.cancelRest();
        int before = run.next;
        settleStarted(run, shutdownDeadline);
        run.finished = true;
        if (run.next > before) {
          LOG.info(
              "{} record(s) of {} finished during the revocation of their partition",
              run.next - before,
              run.tp);
        }
      }
      commits.commit(partitions);
      waits.forget(partitions);
      pausedForCall.removeAll(partitions);
      if (!partitions.isEmpty()) {
        LOG.info("{} revoked; what was done in them is committed", partitions);
      }
    }

    @Override
    public void onPartitionsLost(Collection<TopicPartition> partitions) {
      revokedInBatch.addAll(partitions);
      Run run = inFlight;
      if (run != null && !run.finished && partitions.contains(run.tp)) {
        run.finished = true;
        run.call().abandon("partition lost");
      }
      commits.drop(partitions);
      waits.forget(partitions);
      pausedForCall.removeAll(partitions);
    }

    @Override
    public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
      if (!partitions.isEmpty()) {
        LOG.info("{} assigned", partitions);
      }
      if (inFlight != null) {
        pauseForCall(partitions); // a call is running: new partitions wait for it like the rest
      }
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
