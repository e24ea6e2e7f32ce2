package dev.courier.retry;

import java.time.Instant;
import java.util.Objects;

/** What happens to a record after a failed attempt. */
public sealed interface Decision {

  /** Publish to retry tier {@code tier}, to run as attempt {@code attempt} at {@code dueAt}. */
  record Retry(int tier, int attempt, Instant dueAt) implements Decision {
    public Retry {
      Objects.requireNonNull(dueAt, "dueAt");
    }
  }

  /** Publish to the dead-letter topic with {@code reason}. */
  record DeadLetter(String reason) implements Decision {
    public static final String PERMANENT = "permanent";
    public static final String ATTEMPTS = "attempts-exhausted";
    public static final String DEADLINE = "deadline";
    public static final String EXPIRED = "expired";
    public static final String ELAPSED = "elapsed";
    public static final String MALFORMED = "malformed-headers";

    /**
     * Kafka refused the forward to the next tier for good (the record with the ladder's headers
     * over {@code max.request.size}, a tier the worker may not write): parked instead.
     */
    public static final String FORWARD_REFUSED = "forward-refused";

    /**
     * It waited behind a record of its key ({@code retry.ordering=key}) that went to the DLT, and
     * followed it ({@code retry.ordering.on.dead.letter=park}); {@code courier.blocked.by} names
     * it.
     */
    public static final String WAITING_BEHIND = "waiting-behind";

    /**
     * Its key was blocked and its partition had {@code retry.ordering.max.waiting.records} waiting
     * ({@code retry.ordering.overflow=dead-letter}).
     */
    public static final String ORDERING_OVERFLOW = "ordering-overflow";

    public DeadLetter {
      Objects.requireNonNull(reason, "reason");
    }
  }
}
