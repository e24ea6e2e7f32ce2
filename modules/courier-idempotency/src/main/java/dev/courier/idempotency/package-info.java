/**
 * Idempotent consumers: the dedupe record and the business effect in one PostgreSQL transaction,
 * reused keys with another payload refused, external side effects through a ledger with leases.
 *
 * <p>Key types: {@link dev.courier.idempotency.IdempotentConsumer}, {@link
 * dev.courier.idempotency.IdempotentHandler}, {@link dev.courier.idempotency.IdempotencyConfig},
 * {@link dev.courier.idempotency.OperationKeyExtractor}, {@link
 * dev.courier.idempotency.CanonicalForm}, {@link dev.courier.idempotency.EffectLedger} and {@link
 * dev.courier.idempotency.Reconciler}.
 */
package dev.courier.idempotency;
