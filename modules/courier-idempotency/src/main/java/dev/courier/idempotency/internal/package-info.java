/**
 * All SQL of the idempotent store and the effect ledger ({@code KeySql}, {@code LedgerSql}). Not
 * API.
 */
package dev.courier.idempotency.internal;
