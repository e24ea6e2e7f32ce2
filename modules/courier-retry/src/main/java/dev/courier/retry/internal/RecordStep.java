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

  /**
   * A main-topic record whose key is blocked ({@code retry.ordering=key}): it waits behind the
   * key's records, in order, without a call; its offset is committed once that is written down.
   */
  record Follow() implements RecordStep {
    @Override
    public LadderState state() {
      return null;
    }
  }

  /**
   * A main-topic record read again that its key's chain already holds (or that was done before the
   * key's head), or a tier's copy of a head its key no longer waits for: not called again.
   */
  record Seen() implements RecordStep {
    @Override
    public LadderState state() {
      return null;
    }
  }

  /**
   * Another group's record in a tier of the shared ladder (before each group had its own): that
   * group handles it; this one commits past it without a call.
   */
  record OtherGroup() implements RecordStep {
    @Override
    public LadderState state() {
      return null;
    }
  }

  /**
   * The partition is at {@code retry.ordering.max.blocked.keys} (or at its waiting bound with
   * {@code retry.ordering.overflow=pause}): this record and the rest are read again later.
   */
  record Full() implements RecordStep {
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
