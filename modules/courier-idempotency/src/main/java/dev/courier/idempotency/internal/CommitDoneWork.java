package dev.courier.idempotency.internal;

import java.util.Collection;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The idempotent consumer's rebalance listener: commits what is done for partitions being taken
 * away and drops the rest.
 */
public final class CommitDoneWork implements ConsumerRebalanceListener {

  private static final Logger LOG = LoggerFactory.getLogger(CommitDoneWork.class);

  private final Runnable settleBatch;
  private final ConsumerCommits commits;
  private final String consumerName;

  /**
   * @param settleBatch settles the batch in the database, if any, before anything is committed
   */
  public CommitDoneWork(Runnable settleBatch, ConsumerCommits commits, String consumerName) {
    this.settleBatch = settleBatch;
    this.commits = commits;
    this.consumerName = consumerName;
  }

  @Override
  public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
    // The batch in the database may hold records of these partitions: it settles first. What a
    // transient failure stopped is not committed: the revoked partitions' new owner reads it
    // again, the others are read again once the loop has waited the database out.
    settleBatch.run();
    commits.commitNow(partitions);
    commits.drop(partitions);
  }

  @Override
  public void onPartitionsLost(Collection<TopicPartition> partitions) {
    settleBatch.run();
    commits.drop(partitions);
  }

  @Override
  public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
    commits.assigned(partitions);
    LOG.info("{} assigned {}", consumerName, partitions);
  }
}
