package dev.courier.retry.internal;

import java.util.List;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;

/**
 * What the forwards so far came to without waiting: those not acknowledged yet hold back the commit
 * of their records' partitions from the earliest of them.
 *
 * @param undelivered forwards that were neither delivered nor parked: no offset may be committed
 *     past their records
 * @param unacknowledged per source partition, the earliest record whose forward is still on its way
 *     (or, with key order, whose key's resolution is not written yet: {@link
 *     KeyOrder#unresolved()})
 */
public record ForwardAcks(
    List<Undelivered> undelivered, Map<TopicPartition, Long> unacknowledged) {}
