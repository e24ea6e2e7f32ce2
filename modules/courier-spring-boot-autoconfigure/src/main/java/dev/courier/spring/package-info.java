/**
 * Courier in a Spring Boot application: the outbox in the caller's Spring transaction ({@link
 * dev.courier.spring.TransactionalOutbox}), the idempotent store for listeners ({@link
 * dev.courier.spring.TransactionalIdempotency}), the relay as a lifecycle bean ({@link
 * dev.courier.spring.OutboxRelayLifecycle}) and Actuator health ({@link
 * dev.courier.spring.CourierHealth}). See docs/spring-boot.md.
 */
package dev.courier.spring;
