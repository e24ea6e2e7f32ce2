/**
 * Lag, the age of the oldest unconsumed record, rates and Burrow-style status per consumer group
 * and partition, and admission control that sheds load before a backlog grows without bound.
 *
 * <p>Key types: {@link dev.courier.backpressure.LagMonitor} (ticks, {@link
 * dev.courier.backpressure.LagSnapshot}, {@link dev.courier.backpressure.GroupLag}, {@link
 * dev.courier.backpressure.PartitionLag}, {@link dev.courier.backpressure.Status}), {@link
 * dev.courier.backpressure.MonitorConfig}, {@link dev.courier.backpressure.MonitorService} (HTTP),
 * {@link dev.courier.backpressure.AdmissionController} with {@link
 * dev.courier.backpressure.AdmissionConfig} and {@link dev.courier.backpressure.BacklogSignals}.
 */
package dev.courier.backpressure;
