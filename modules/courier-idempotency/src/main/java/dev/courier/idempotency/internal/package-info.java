/**
 * The idempotent store's internals: all SQL of the store and the effect ledger ({@code KeySql},
 * {@code LedgerSql}) and the consumer's offset commits ({@code ConsumerCommits}). Not API.
 */
package dev.courier.idempotency.internal;
