/**
 * The monitor's internals: batched Admin reads ({@code OffsetCollector}), oldest-record reads
 * ({@code OldestRecordReader}, {@code AgeBook}) and the columnar tick state ({@code
 * PartitionTable}, {@code GroupWindows}, {@code PairFigures}, {@code GroupRows}). Not API.
 */
package dev.courier.backpressure.internal;
