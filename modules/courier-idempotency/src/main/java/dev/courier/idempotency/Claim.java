package dev.courier.idempotency;

import java.time.Instant;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;

/**
 * The answer to {@link EffectLedger#claim}: whether the caller may perform the external effect now.
 *
 * @param key the effect key; pass it to the downstream call as its idempotency key
 * @param status what the caller should do
 * @param leaseToken fences the owner's later calls (set when OWNED)
 * @param leaseUntil when the lease ends (OWNED: yours; BUSY: the other worker's)
 * @param attempt how many times the effect has been claimed, this claim included
 * @param result the stored result (COMPLETED)
 */
public record Claim(
    String key, Status status, UUID leaseToken, Instant leaseUntil, int attempt, String result) {

  /** What the caller should do with the effect. */
  public enum Status {
    /** Perform the effect, then complete, release or mark unknown before the lease ends. */
    OWNED,
    /** Already done: use {@link #result()} and do not call again. */
    COMPLETED,
    /** Another worker holds a live lease: retry later. */
    BUSY,
    /** A previous attempt's outcome is unknown: wait for the {@link Reconciler}. */
    UNKNOWN
  }

  public Claim {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(status, "status");
    if (status == Status.OWNED && (leaseToken == null || leaseUntil == null)) {
      throw new IllegalArgumentException("an OWNED claim carries its lease");
    }
  }

  /** The idempotency key to send with the downstream call. */
  public String idempotencyKey() {
    return key;
  }

  public Optional<String> storedResult() {
    return Optional.ofNullable(result);
  }
}
