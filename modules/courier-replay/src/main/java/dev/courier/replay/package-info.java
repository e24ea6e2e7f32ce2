/**
 * Consumer groups that replay on their own committed offsets: resets planned as a dry run, executed
 * with an audit entry and an undo file, compatible with {@code kafka-consumer-groups}.
 *
 * <p>Key types: {@link dev.courier.replay.OffsetResetter}, {@link dev.courier.replay.ResetPlan},
 * {@link dev.courier.replay.ResetScope}, {@link dev.courier.replay.AuditLog}, {@link
 * dev.courier.replay.StreamsApplicationReset}.
 */
package dev.courier.replay;
