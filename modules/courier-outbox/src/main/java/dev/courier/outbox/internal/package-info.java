/**
 * The relay's internals: start-up checks, slot identity, row routing and dead-letter envelopes. Not
 * API.
 */
package dev.courier.outbox.internal;
