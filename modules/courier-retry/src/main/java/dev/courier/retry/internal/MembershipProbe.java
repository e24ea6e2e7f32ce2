package dev.courier.retry.internal;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.DescribeConsumerGroupsOptions;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Proves the {@link MembershipLease}: on the loop's thread after each poll, a generation that
 * changed is a join just completed; otherwise, when the lease is due, the group is described and
 * the member found in it (on the Admin client's thread). A member the coordinator no longer lists
 * proves nothing: its calls wait until the consumer learns it lost its partitions and their runs
 * are cancelled, or it joins again.
 */
public final class MembershipProbe implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(MembershipProbe.class);

  private final MembershipLease lease;
  private final Admin admin;
  private final String group;
  private final Duration timeout;

  private int generation = -1;
  private volatile boolean asking;
  private volatile boolean missing;
  private volatile boolean closed;

  /**
   * @param admin the probe's own client, closed with it
   */
  public MembershipProbe(MembershipLease lease, Admin admin, String group, Duration timeout) {
    this.lease = lease;
    this.admin = admin;
    this.group = group;
    this.timeout = timeout;
  }

  public MembershipLease lease() {
    return lease;
  }

  /** On the loop's thread, after a poll (or while it waits for a call). */
  public void maintain(Consumer<?, ?> consumer) {
    ConsumerGroupMetadata member = consumer.groupMetadata();
    if (member.generationId() < 0 || member.memberId().isEmpty()) {
      return; // not in the group: its next join proves it
    }
    if (member.generationId() != generation) {
      generation = member.generationId();
      lease.proven(lease.now()); // this poll completed a join
      return;
    }
    if (asking || !lease.dueForProof()) {
      return;
    }
    asking = true;
    long sentAt = lease.now();
    String memberId = member.memberId();
    admin
        .describeConsumerGroups(
            List.of(group),
            new DescribeConsumerGroupsOptions().timeoutMs((int) Math.max(1000, timeout.toMillis())))
        .all()
        .whenComplete((groups, failure) -> answered(groups, failure, memberId, sentAt));
  }

  private void answered(
      Map<String, ConsumerGroupDescription> groups,
      Throwable failure,
      String memberId,
      long sentAt) {
    try {
      if (failure != null) {
        LOG.debug("could not describe group {}: {}", group, failure.toString());
        return;
      }
      ConsumerGroupDescription described = groups.get(group);
      boolean listed =
          described != null
              && described.members().stream().anyMatch(m -> memberId.equals(m.consumerId()));
      if (listed) {
        missing = false;
        lease.proven(sentAt);
      } else if (!missing && !closed) { // a member that left at its close is not listed either
        missing = true;
        LOG.warn(
            "group {} no longer lists this member ({}): handler calls wait until the consumer"
                + " learns which partitions it still has",
            group,
            memberId);
      }
    } finally {
      asking = false;
    }
  }

  @Override
  public void close() {
    closed = true;
    admin.close(Duration.ofSeconds(1));
  }
}
