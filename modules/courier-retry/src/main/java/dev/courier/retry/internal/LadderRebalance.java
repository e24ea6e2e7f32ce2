package dev.courier.retry.internal;

import java.util.Collection;
import java.util.function.IntSupplier;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Commits what is done in partitions being taken away, after settling the call in flight if it is
 * one of theirs, so a rebalance repeats nothing; the records after it are left to the new owner.
 */
public final class LadderRebalance implements ConsumerRebalanceListener {

  private static final Logger LOG = LoggerFactory.getLogger(LadderRebalance.class);

  private final RunSettler settler;
  private final Commits commits;
  private final TierWaits waits;
  private final PartitionPauses pauses;
  private final KeyOrder order;
  private final IntSupplier generation;

  /**
   * @param order key order, or null: the blocked keys of partitions assigned are read back before
   *     their first record
   * @param generation the member's group generation, asked when partitions are assigned
   */
  public LadderRebalance(
      RunSettler settler,
      Commits commits,
      TierWaits waits,
      PartitionPauses pauses,
      KeyOrder order,
      IntSupplier generation) {
    this.order = order;
    this.generation = generation;
    this.settler = settler;
    this.commits = commits;
    this.waits = waits;
    this.pauses = pauses;
  }

  @Override
  public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
    settler.revoked(partitions);
    settler.finishRevoked(partitions);
    commits.commitRevoked(partitions);
    if (order != null) {
      order.revoking(partitions);
    }
    waits.forget(partitions);
    pauses.forget(partitions);
    if (order != null) {
      order.forget(partitions);
    }
    settler.abandonSpans(partitions);
    if (!partitions.isEmpty()) {
      LOG.info("{} revoked; what was done in them is committed", partitions);
    }
  }

  @Override
  public void onPartitionsLost(Collection<TopicPartition> partitions) {
    settler.revoked(partitions);
    settler.abandonLost(partitions);
    commits.drop(partitions);
    waits.forget(partitions);
    pauses.forget(partitions);
    if (order != null) {
      order.forget(partitions);
    }
    settler.abandonSpans(partitions);
  }

  @Override
  public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
    if (!partitions.isEmpty()) {
      LOG.info("{} assigned", partitions);
    }
    commits.assigned(partitions);
    if (order != null) {
      order.assigned(partitions, commits::atAssignment, generation.getAsInt());
    }
    if (settler.callInFlight()) {
      pauses.pauseForCall(
          partitions); // a call is running: new partitions wait for it like the rest
    }
  }
}
