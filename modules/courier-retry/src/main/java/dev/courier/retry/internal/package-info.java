/**
 * The ladder's internals: headers parsed once ({@code Hop}), handler calls off the poll thread
 * ({@code HandlerCalls}), commits and tier waits. Not API.
 */
package dev.courier.retry.internal;
