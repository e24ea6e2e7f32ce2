package dev.courier.idempotency;

import dev.courier.idempotency.internal.IdempotencyMetrics;
import dev.courier.idempotency.internal.LedgerSql;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.MeterRegistry;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.UUID;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** {@link EffectLedger} in PostgreSQL; times come from the injected clock. */
final class PostgresEffectLedger implements EffectLedger {

  private static final Logger LOG = LoggerFactory.getLogger(PostgresEffectLedger.class);
  private static final int RECONCILE_BATCH = 500;

  private final DataSource dataSource;
  private final String owner;
  private final Duration lease;
  private final Clock clock;
  private final DistributionSummary attemptsPerCompletion;

  PostgresEffectLedger(
      DataSource dataSource, String owner, Duration lease, Clock clock, MeterRegistry registry) {
    if (lease.isNegative() || lease.isZero()) {
      throw new IllegalArgumentException("the lease must be positive, was " + lease);
    }
    this.dataSource = dataSource;
    this.owner = owner;
    this.lease = lease;
    this.clock = clock;
    this.attemptsPerCompletion = IdempotencyMetrics.ledgerAttempts(registry);
  }

  @Override
  public Claim claim(String key) {
    Instant now = clock.instant();
    UUID token = UUID.randomUUID();
    try (Connection c = connection()) {
      Optional<LedgerSql.Row> owned =
          LedgerSql.tryClaim(c, key, owner, token, now, now.plus(lease));
      if (owned.isPresent()) {
        LedgerSql.Row row = owned.get();
        return new Claim(key, Claim.Status.OWNED, token, row.leaseUntil(), row.attempts(), null);
      }
      LedgerSql.Row row =
          LedgerSql.find(c, key)
              .orElseThrow(() -> new IllegalStateException("effect " + key + " vanished"));
      return switch (row.status()) {
        case "COMPLETED" ->
            new Claim(key, Claim.Status.COMPLETED, null, null, row.attempts(), row.result());
        case "UNKNOWN" -> new Claim(key, Claim.Status.UNKNOWN, null, null, row.attempts(), null);
        default -> new Claim(key, Claim.Status.BUSY, null, row.leaseUntil(), row.attempts(), null);
      };
    } catch (SQLException e) {
      throw new IllegalStateException("claiming effect " + key + " failed: " + e.getMessage(), e);
    }
  }

  @Override
  public void complete(Claim claim, String result) {
    settle(claim, "COMPLETED", result, null, "complete");
    attemptsPerCompletion.record(claim.attempt());
  }

  @Override
  public void release(Claim claim) {
    settle(claim, "RELEASED", null, "released after a transient failure", "release");
  }

  @Override
  public void markUnknown(Claim claim, String reason) {
    settle(claim, "UNKNOWN", null, reason, "mark unknown");
  }

  @Override
  public int reconcile(Reconciler reconciler) {
    int resolved = 0;
    try (Connection c = connection()) {
      for (LedgerSql.Row row : LedgerSql.unknown(c, RECONCILE_BATCH)) {
        Reconciler.Verdict verdict;
        try {
          verdict = reconciler.reconcile(row.key(), row.attempts(), row.reason());
        } catch (Exception e) {
          LOG.warn("reconciling effect {} failed, it stays UNKNOWN: {}", row.key(), e.toString());
          continue;
        }
        Instant now = clock.instant();
        if (verdict instanceof Reconciler.Happened happened) {
          resolved +=
              LedgerSql.resolveUnknown(
                      c, row.key(), "COMPLETED", happened.result(), "reconciled: it happened", now)
                  ? 1
                  : 0;
          attemptsPerCompletion.record(row.attempts());
        } else if (verdict instanceof Reconciler.DidNotHappen) {
          resolved +=
              LedgerSql.resolveUnknown(
                      c, row.key(), "RELEASED", null, "reconciled: it did not happen", now)
                  ? 1
                  : 0;
        }
      }
    } catch (SQLException e) {
      throw new IllegalStateException("reconciliation failed: " + e.getMessage(), e);
    }
    return resolved;
  }

  @Override
  public Optional<LedgerEntry> entry(String key) {
    try (Connection c = connection()) {
      return LedgerSql.find(c, key)
          .map(
              r ->
                  new LedgerEntry(
                      r.key(),
                      r.status(),
                      r.owner(),
                      r.leaseUntil(),
                      r.attempts(),
                      r.result(),
                      r.reason(),
                      r.createdAt(),
                      r.updatedAt(),
                      r.completedAt()));
    } catch (SQLException e) {
      throw new IllegalStateException("reading effect " + key + " failed: " + e.getMessage(), e);
    }
  }

  private void settle(Claim claim, String status, String result, String reason, String action) {
    if (claim.status() != Claim.Status.OWNED) {
      throw new IllegalArgumentException(
          "only an OWNED claim can " + action + ", this one is " + claim.status());
    }
    try (Connection c = connection()) {
      if (!LedgerSql.settle(
          c, claim.key(), claim.leaseToken(), status, result, reason, clock.instant())) {
        throw new LeaseLostException(claim.key(), action);
      }
    } catch (SQLException e) {
      throw new IllegalStateException(
          action + " of effect " + claim.key() + " failed: " + e.getMessage(), e);
    }
  }

  private Connection connection() throws SQLException {
    Connection c = dataSource.getConnection();
    c.setAutoCommit(true);
    return c;
  }
}
