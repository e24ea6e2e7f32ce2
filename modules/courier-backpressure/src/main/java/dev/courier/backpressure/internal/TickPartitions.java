package dev.courier.backpressure.internal;

import org.apache.kafka.common.TopicPartition;

/**
 * One tick's partitions by id, shared by every row of that tick's snapshot: the partition, its
 * log-end offset (-1 unknown) and produce rate.
 */
public record TickPartitions(TopicPartition[] partitions, long[] ends, float[] produceRates) {}
