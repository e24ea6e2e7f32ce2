/**
 * The retry ladder and dead-letter topic: errors classified, transient ones through delay topics
 * with capped exponential backoff and full jitter, an attempt cap, a deadline and a retry budget;
 * permanent and exhausted ones parked in the DLT with their context, and audited replay from it.
 *
 * <p>Key types: {@link dev.courier.retry.RetryingConsumer}, {@link dev.courier.retry.RetryConfig},
 * {@link dev.courier.retry.FailureClassifier}, {@link dev.courier.retry.RetryPolicy}, {@link
 * dev.courier.retry.RetryBudget}, {@link dev.courier.retry.RetryTopics}, {@link
 * dev.courier.retry.DltReplayer}.
 */
package dev.courier.retry;
