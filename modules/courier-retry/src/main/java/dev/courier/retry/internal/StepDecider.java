package dev.courier.retry.internal;

import dev.courier.retry.Decision;
import dev.courier.retry.RetryBudget;
import java.time.Instant;
import java.util.Optional;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * Decides what a polled record needs before any call, from its parsed headers, the clock and the
 * retry budget: wait for its due time (or for a token), go to the DLT unexecuted, or be called. No
 * I/O; the budget's tokens are its only state.
 */
public final class StepDecider {

  private final int maxAttempts;
  private final RetryDecider rules;
  private final RetryBudget budget;
  private final String operationKeyHeader;

  public StepDecider(
      int maxAttempts, RetryDecider rules, RetryBudget budget, String operationKeyHeader) {
    this.maxAttempts = maxAttempts;
    this.rules = rules;
    this.budget = budget;
    this.operationKeyHeader = operationKeyHeader;
  }

  /**
   * @param read the record's headers as {@link LadderState#read} parsed them
   * @param tier the record's tier, 0 for the main topic
   */
  public RecordStep decide(
      ConsumerRecord<byte[], byte[]> record, LadderRead read, int tier, Instant now) {
    if (read instanceof Malformed malformed) {
      return new RecordStep.Park(
          LadderState.of(record, operationKeyHeader),
          Hop.Failure.notExecuted(Decision.DeadLetter.MALFORMED, 0, now, malformed.describe()));
    }
    LadderState state = (LadderState) read;
    Instant first = state.firstFailure().orElse(now);
    if (state.attempt() > maxAttempts) {
      return new RecordStep.Park(
          state,
          Hop.Failure.notExecuted(
              Decision.DeadLetter.ATTEMPTS,
              state.attempt() - 1,
              first,
              "not executed: it waited in "
                  + record.topic()
                  + " for attempt "
                  + state.attempt()
                  + ", above retry.max.attempts="
                  + maxAttempts));
    }
    if (state.due().isPresent() && now.isBefore(state.due().get())) {
      return new RecordStep.Wait(state.due().get(), false);
    }
    Optional<Decision.DeadLetter> expired = rules.beforeAttempt(state.deadline(), now);
    if (expired.isPresent()) {
      return new RecordStep.Park(
          state, Hop.Failure.notExecuted(expired.get().reason(), state.attempt() - 1, first, null));
    }
    if (tier > 0 && !budget.tryAcquire()) {
      return new RecordStep.Wait(now.plus(budget.untilAvailable()), true);
    }
    return new RecordStep.Call(state, tier);
  }
}
