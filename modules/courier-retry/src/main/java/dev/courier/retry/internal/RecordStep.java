package dev.courier.retry.internal;

import java.time.Instant;

/** What one polled record needs, decided before its run goes to the handler thread. */
public sealed interface RecordStep {

  /** The state the record's headers gave, or null for {@link Wait}. */
  LadderState state();

  /** Not due yet, or no retry budget: the record and those after it wait at their tier. */
  record Wait(Instant due, boolean forBudget) implements RecordStep {
    @Override
    public LadderState state() {
      return null;
    }
  }

  /** Parked in the DLT without a call (malformed, above the cap, expired), in its turn. */
  record Park(LadderState state, Hop.Failure failure) implements RecordStep {}

  /** A handler call as attempt {@code state.attempt()} at {@code tier}. */
  record Call(LadderState state, int tier) implements RecordStep {}

  /** The deserializer refused the record: settled as that call's failure, without a call. */
  record Unreadable(LadderState state, int tier, RuntimeException error) implements RecordStep {}
}
