package dev.courier.idempotency;

import dev.courier.core.CrashPoint;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Metrics;
import java.time.Clock;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import javax.sql.DataSource;

/**
 * A durable ledger for effects outside the local database (an email, a payment API, a model call):
 * at most one worker at a time holds a lease on a key, a crashed worker's lease expires and is
 * taken over, a worker that lost its lease cannot settle the effect, and an ambiguous outcome waits
 * for a {@link Reconciler} instead of being repeated blindly. Attempts, owner, lease, outcome and
 * timestamps are kept for audit.
 *
 * <pre>{@code
 * Claim claim = ledger.claim(key);
 * switch (claim.status()) {
 *   case OWNED -> {
 *     try {
 *       String receipt = payments.charge(request, claim.idempotencyKey());
 *       ledger.complete(claim, receipt);
 *     } catch (TimeoutException e) {
 *       ledger.markUnknown(claim, "timeout after 10 s");
 *     } catch (TransientException e) {
 *       ledger.release(claim);
 *     }
 *   }
 *   case COMPLETED -> acknowledge(claim.result());
 *   case BUSY, UNKNOWN -> retryLater();
 * }
 * }</pre>
 */
public interface EffectLedger {

  /** Reached after the external call returned and before its completion is recorded. */
  CrashPoint AFTER_EXTERNAL_CALL_BEFORE_COMPLETE =
      CrashPoint.named("after-external-call-before-complete");

  /** Asks for the right to perform the effect with this key. */
  Claim claim(String key);

  /**
   * Records the effect as done with its result.
   *
   * @throws LeaseLostException when the claim's lease was taken over
   */
  void complete(Claim claim, String result);

  /** Gives the effect up after a transient failure: it may be claimed again at once. */
  void release(Claim claim);

  /** The outcome is ambiguous: nobody performs it again until reconciliation decides. */
  void markUnknown(Claim claim, String reason);

  /**
   * Resolves every UNKNOWN effect with the reconciler.
   *
   * @return how many were resolved (happened or did not happen)
   */
  int reconcile(Reconciler reconciler);

  /**
   * Claims, calls and settles in one go: a completed effect returns its stored result without a
   * call; an ambiguous outcome is marked UNKNOWN; any other failure releases the claim and is
   * rethrown.
   *
   * @return the claim as it ended: COMPLETED (with the result), BUSY or UNKNOWN
   */
  default Claim perform(String key, ExternalEffect effect) throws Exception {
    Claim claim = claim(key);
    if (claim.status() != Claim.Status.OWNED) {
      return claim;
    }
    String result;
    try {
      result = effect.call(claim.idempotencyKey());
    } catch (AmbiguousOutcomeException e) {
      markUnknown(claim, e.getMessage());
      return new Claim(key, Claim.Status.UNKNOWN, null, null, claim.attempt(), null);
    } catch (Exception e) {
      release(claim);
      throw e;
    }
    AFTER_EXTERNAL_CALL_BEFORE_COMPLETE.reach();
    complete(claim, result);
    return new Claim(key, Claim.Status.COMPLETED, null, null, claim.attempt(), result);
  }

  /** The ledger's row for a key, for audit and tests. */
  Optional<LedgerEntry> entry(String key);

  static Builder builder() {
    return new Builder();
  }

  /** A ledger in PostgreSQL for one worker; its tables are created if missing. */
  final class Builder {
    private DataSource dataSource;
    private String owner;
    private Duration lease = Duration.ofSeconds(30);
    private Clock clock = Clock.systemUTC();
    private MeterRegistry meterRegistry = Metrics.globalRegistry;

    private Builder() {}

    public Builder dataSource(DataSource dataSource) {
      this.dataSource = dataSource;
      return this;
    }

    /** This worker's name, stored with every claim for audit (required). */
    public Builder owner(String owner) {
      this.owner = owner;
      return this;
    }

    /** How long a claim is this worker's before another may take it over (default 30 s). */
    public Builder lease(Duration lease) {
      this.lease = lease;
      return this;
    }

    public Builder clock(Clock clock) {
      this.clock = clock;
      return this;
    }

    public Builder meterRegistry(MeterRegistry registry) {
      this.meterRegistry = Objects.requireNonNull(registry, "registry");
      return this;
    }

    public EffectLedger build() {
      if (dataSource == null) {
        throw new IllegalStateException("dataSource is required");
      }
      if (owner == null || owner.isBlank()) {
        throw new IllegalStateException("owner is required");
      }
      if (lease.isNegative() || lease.isZero()) {
        throw new IllegalArgumentException("lease must be positive: " + lease);
      }
      IdempotencySchema.migrate(dataSource);
      return new PostgresEffectLedger(dataSource, owner, lease, clock, meterRegistry);
    }
  }
}
