package dev.courier.retry.internal;

import dev.courier.retry.Classification;
import dev.courier.retry.Decision;
import dev.courier.retry.FailureClassifier;
import dev.courier.retry.HandlerTimeoutException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.Future;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Settles a record, in its turn: a finished call is counted, a failed one classified and routed by
 * the {@link RetryDecider} to its next tier or the DLT, and a parked record dead-lettered. The
 * publishing is the {@link LadderPublisher}'s.
 */
public final class Outcomes {

  private static final Logger LOG = LoggerFactory.getLogger(Outcomes.class);

  private final LadderPublisher publisher;
  private final FailureClassifier classifier;
  private final RetryDecider rules;
  private final RetryMetrics metrics;
  private final LadderProgress progress;
  private final Clock clock;
  private OrderHooks order = OrderHooks.NONE;
  private LadderTracing tracing = LadderTracing.NONE;

  public Outcomes(
      LadderPublisher publisher,
      FailureClassifier classifier,
      RetryDecider rules,
      RetryMetrics metrics,
      LadderProgress progress,
      Clock clock) {
    this.publisher = publisher;
    this.classifier = classifier;
    this.rules = rules;
    this.metrics = metrics;
    this.progress = progress;
    this.clock = clock;
  }

  /** Key order ({@code retry.ordering=key}) hears of every record settled. */
  public void order(OrderHooks order) {
    this.order = order;
  }

  /** Each attempt's span, when the ladder is traced. */
  public void tracing(LadderTracing tracing) {
    this.tracing = tracing;
    publisher.tracing(tracing);
  }

  public LadderTracing tracing() {
    return tracing;
  }

  /** A step settled without a handler call of its own: parked, or refused by the deserializer. */
  public void settle(ConsumerRecord<byte[], byte[]> record, RecordStep step, Instant decidedAt) {
    boolean forItself =
        step instanceof RecordStep.Unreadable
            || step instanceof RecordStep.Park park
                && !Decision.DeadLetter.ORDERING_OVERFLOW.equals(park.failure().reason());
    if (forItself && order.waitsNow(record)) {
      return; // decided before a call of its key in the same run failed: it waits behind that one
    }
    if (step instanceof RecordStep.OtherGroup) {
      return; // another group's record in a tier of the shared ladder: committed past
    }
    if (step instanceof RecordStep.Follow) {
      order.follow(record);
    } else if (step instanceof RecordStep.Seen) {
      order.seen(record);
    } else if (step instanceof RecordStep.Park park) {
      deadLetter(record, park.state(), -1, park.failure(), decidedAt);
    } else if (step instanceof RecordStep.Unreadable unreadable) {
      called(
          record,
          unreadable.state(),
          unreadable.tier(),
          new HandlerCalls.Result(Optional.of(unreadable.error())));
    } else {
      throw new IllegalArgumentException("not settled without a call: " + step);
    }
  }

  /**
   * What a finished (or abandoned-for-time) call means for the record.
   *
   * @throws Error what the handler threw when it was one: the loop stops rather than go on in a JVM
   *     that may be broken
   */
  public void called(
      ConsumerRecord<byte[], byte[]> record,
      LadderState state,
      int tier,
      HandlerCalls.Result result) {
    metrics.attempt(tier);
    progress.call();
    if (result.succeeded()) {
      progress.succeeded();
      metrics.callsPerOperation.record(state.attempt());
      order.succeeded(record, state, tier);
      tracing.succeeded(record);
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
    failed(record, state, tier, (Exception) failure);
  }

  /** A due retry that found the budget empty. */
  public void budgetWait() {
    progress.budgetWait();
    metrics.budgetWaits.increment();
  }

  /** A tier record ran this late after its due time. */
  public void late(Duration lateness) {
    metrics.lateness.record(lateness);
  }

  private void failed(
      ConsumerRecord<byte[], byte[]> record, LadderState state, int tier, Exception e) {
    Instant now = clock.instant();
    Classification classification = classifier.classify(e);
    Instant first = state.firstFailure().orElse(now);
    Decision decision =
        rules.afterFailure(state.attempt(), classification, first, state.deadline(), now);
    tracing.attempt(record, state, tier);
    if (decision instanceof Decision.Retry retry) {
      order.retrying(record, state, tier);
      publisher.retry(
          record,
          state,
          retry.tier(),
          Hop.Failure.retry(retry.attempt(), first, retry.dueAt(), e, classification),
          now);
      tracing.retried(
          record,
          e,
          classification,
          publisher.tierTopic(retry.tier()),
          Duration.between(now, retry.dueAt()));
      progress.retried();
      LOG.debug(
          "{} attempt {} failed ({}); retry {} due {}",
          coordinates(record),
          state.attempt(),
          e.toString(),
          retry.attempt(),
          retry.dueAt());
    } else {
      String reason = ((Decision.DeadLetter) decision).reason();
      deadLetter(
          record,
          state,
          tier,
          Hop.Failure.failed(reason, state.attempt(), first, e, classification),
          now);
      metrics.callsPerOperation.record(state.attempt());
    }
  }

  /**
   * @param tier the record's tier, or -1 for a record parked without a call (its tier is its
   *     topic's)
   */
  private void deadLetter(
      ConsumerRecord<byte[], byte[]> record,
      LadderState state,
      int tier,
      Hop.Failure failure,
      Instant now) {
    tracing.attempt(record, state, tier);
    Future<RecordMetadata> letter = publisher.deadLetter(record, state, failure, now);
    tracing.deadLettered(
        record,
        failure.error(),
        failure.classification(),
        failure.reason(),
        publisher.deadLetterTopic());
    progress.deadLettered();
    metrics.deadLettered(failure.reason());
    LOG.warn(
        "{} dead-lettered as '{}' after {} attempt(s): {}",
        coordinates(record),
        failure.reason(),
        failure.attempts(),
        failure.describe());
    order.deadLettered(record, state, tier, failure, letter);
  }

  static String coordinates(ConsumerRecord<?, ?> r) {
    return r.topic() + "-" + r.partition() + "@" + r.offset();
  }
}
