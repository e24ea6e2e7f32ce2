package dev.courier.idempotency;

import java.time.Instant;

/** One effect as the ledger stores it. */
public record LedgerEntry(
    String key,
    String status,
    String owner,
    Instant leaseUntil,
    int attempts,
    String result,
    String outcomeReason,
    Instant createdAt,
    Instant updatedAt,
    Instant completedAt) {}
