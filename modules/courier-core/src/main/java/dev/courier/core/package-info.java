/**
 * What every Courier module shares: header names ({@link dev.courier.core.CourierHeaders}), the
 * Kafka client settings ({@link dev.courier.core.ClientSettings}), choice settings ({@link
 * dev.courier.core.Choice}), service health ({@link dev.courier.core.ServiceHealth}), crash points
 * for failure tests ({@link dev.courier.core.CrashPoints}) and {@link
 * dev.courier.core.PermanentError}.
 */
package dev.courier.core;
