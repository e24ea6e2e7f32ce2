package dev.courier.backpressure.internal;

import dev.courier.backpressure.internal.ClusterOffsets.Assignment;
import dev.courier.backpressure.internal.ClusterOffsets.GroupOffsets;
import dev.courier.backpressure.internal.ClusterOffsets.Owner;
import dev.courier.core.internal.Failures;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Pattern;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.GroupListing;
import org.apache.kafka.clients.admin.ListConsumerGroupOffsetsResult;
import org.apache.kafka.clients.admin.ListConsumerGroupOffsetsSpec;
import org.apache.kafka.clients.admin.ListGroupsOptions;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.MemberDescription;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.GroupAuthorizationException;
import org.apache.kafka.common.errors.GroupIdNotFoundException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;

/**
 * Reads a tick's offsets with batched Admin calls: one ListGroups when groups are picked by
 * pattern, one DescribeGroups per coordinator for all groups, OffsetFetches batching as many groups
 * as make about {@link #PAIRS_PER_REQUEST} pairs (KIP-709; one for all at up to that size), and one
 * ListOffsets per partition leader for every partition of every group, sent together with the group
 * calls for the partitions the last tick knew (a log end read a moment before a commit only makes
 * that lag 0 for a tick; lag is never negative). Log-start offsets are asked for only when a group
 * owns a partition it never committed and reads it from the earliest offset.
 *
 * <p>Every group and every partition is answered for on its own: a missing group, a deleted topic
 * or a partition without a leader costs its own rows (with the reason), never the tick.
 */
public final class OffsetCollector {

  private final Admin admin;
  private final List<String> configuredGroups;
  private final Pattern include;
  private final Pattern exclude;
  private final boolean uncommittedFromEarliest;
  private final Duration timeout;
  // The partitions the last tick asked log ends for: this tick asks for them at once, alongside
  // the group calls, so a steady tick waits for the slower of the two rather than their sum.
  private Set<TopicPartition> lastPartitions = Set.of();

  /** Committed offsets asked for in one request, by the groups' pair counts of the last tick. */
  static final int PAIRS_PER_REQUEST = 100_000;

  /** What a group the last tick did not see counts for: at most ten such groups a request. */
  static final int UNKNOWN_GROUP_PAIRS = PAIRS_PER_REQUEST / 10;

  private Map<String, Integer> lastPairs = Map.of();

  public OffsetCollector(
      Admin admin,
      List<String> configuredGroups,
      Pattern include,
      Pattern exclude,
      boolean uncommittedFromEarliest,
      Duration timeout) {
    this.admin = admin;
    this.configuredGroups = List.copyOf(configuredGroups);
    this.include = include;
    this.exclude = exclude;
    this.uncommittedFromEarliest = uncommittedFromEarliest;
    this.timeout = timeout;
  }

  /**
   * @throws IllegalStateException only when the cluster does not answer the group listing (the
   *     whole tick then has nothing to say)
   */
  public ClusterOffsets collect() {
    long deadline = System.nanoTime() + timeout.toNanos();
    Collection<String> groups = groups(deadline);
    if (groups.isEmpty()) {
      return new ClusterOffsets(Map.of(), Map.of(), Map.of(), Map.of(), Map.of());
    }
    // In flight at once: they go to the same coordinators and do not depend on each other.
    Map<String, KafkaFuture<ConsumerGroupDescription>> describing =
        admin.describeConsumerGroups(groups).describedGroups();
    Set<TopicPartition> early = lastPartitions;
    ListOffsetsResult earlyEnds =
        early.isEmpty() ? null : requestOffsets(early, OffsetSpec.latest(), deadline);
    Map<String, Failed> offsetFailures = new HashMap<>();
    Map<String, CommittedOffsets> committedOffsets = committed(groups, deadline, offsetFailures);

    Map<String, GroupOffsets> result = new HashMap<>();
    Map<String, String> groupProblems = new HashMap<>();
    Set<TopicPartition> partitions = new HashSet<>();
    Set<TopicPartition> needStart = new HashSet<>();
    Map<String, Integer> pairs = new HashMap<>();
    int silent = 0;
    for (String group : groups) {
      CommittedOffsets committed = committedOffsets.get(group);
      if (committed == null) {
        Failed e = offsetFailures.get(group);
        groupProblems.put(group, e.reason("offsets"));
        silent += e.timedOut() ? 1 : 0;
        continue;
      }
      List<Assignment> assignments = new ArrayList<>();
      int members = 0;
      String state;
      try {
        ConsumerGroupDescription description = await(describing.get(group), deadline);
        state = description.groupState().toString();
        members = description.members().size();
        for (MemberDescription m : description.members()) {
          assignments.add(
              new Assignment(
                  new Owner(m.consumerId(), m.host(), m.clientId()),
                  m.assignment().topicPartitions()));
        }
      } catch (Failed e) {
        if (committed.size() == 0) {
          groupProblems.put(group, e.reason("group"));
          silent += e.timedOut() ? 1 : 0;
          continue;
        }
        // Offsets without a describable group (e.g. set in advance by an operator): no members.
        state = e.notFound() ? "Empty" : "Unknown";
      }
      committed.forEach((tp, offset) -> partitions.add(tp));
      int owned = 0;
      for (Assignment a : assignments) {
        partitions.addAll(a.partitions());
        owned += a.partitions().size();
        if (uncommittedFromEarliest) {
          for (TopicPartition tp : a.partitions()) {
            if (committed.offset(tp) < 0) {
              needStart.add(tp);
            }
          }
        }
      }
      pairs.put(group, Math.max(committed.size(), owned));
      result.put(group, new GroupOffsets(group, state, members, committed, assignments));
    }
    lastPairs = pairs;
    if (silent == groups.size()) {
      // Not one coordinator answered: that says nothing about the groups and everything about the
      // monitor's view of the cluster, so the tick fails and the figures go stale.
      throw new IllegalStateException(
          "no answer from the cluster: none of the " + silent + " groups' coordinators answered");
    }
    Map<TopicPartition, String> partitionProblems = new HashMap<>();
    Map<TopicPartition, Long> ends = new HashMap<>();
    Set<TopicPartition> late = new HashSet<>();
    for (TopicPartition tp : partitions) {
      if (early.contains(tp)) {
        collectOffset(earlyEnds, tp, deadline, ends, partitionProblems);
      } else {
        late.add(tp);
      }
    }
    if (!late.isEmpty()) {
      ends.putAll(listOffsets(late, OffsetSpec.latest(), deadline, partitionProblems));
    }
    lastPartitions = partitions;
    Map<TopicPartition, Long> starts =
        needStart.isEmpty()
            ? Map.of()
            : listOffsets(needStart, OffsetSpec.earliest(), deadline, new HashMap<>());
    return new ClusterOffsets(result, ends, starts, groupProblems, partitionProblems);
  }

  /**
   * The groups' committed offsets, asked for a few groups at a time (about {@link
   * #PAIRS_PER_REQUEST} pairs by the last tick's counts) and each group's answer made compact
   * before the next request: one request for all groups is answered with one response holding every
   * pair, and at a million pairs that response and the Admin client's maps built from it were over
   * 200 MB at once.
   */
  private Map<String, CommittedOffsets> committed(
      Collection<String> groups, long deadline, Map<String, Failed> failures) {
    Map<String, CommittedOffsets> committed = new HashMap<>();
    // One partition object per partition for the tick, however many groups commit on it: the
    // groups' offsets and the tick's partition set share them, and nothing is allocated per pair.
    Map<TopicPartition, TopicPartition> canonical = new HashMap<>();
    List<String> chunk = new ArrayList<>();
    int chunkPairs = 0;
    for (String group : groups) {
      int pairs = lastPairs.getOrDefault(group, UNKNOWN_GROUP_PAIRS);
      if (!chunk.isEmpty() && chunkPairs + pairs > PAIRS_PER_REQUEST) {
        fetchCommitted(chunk, deadline, canonical, committed, failures);
        chunk.clear();
        chunkPairs = 0;
      }
      chunk.add(group);
      chunkPairs += pairs;
    }
    if (!chunk.isEmpty()) {
      fetchCommitted(chunk, deadline, canonical, committed, failures);
    }
    return committed;
  }

  private void fetchCommitted(
      List<String> groups,
      long deadline,
      Map<TopicPartition, TopicPartition> canonical,
      Map<String, CommittedOffsets> committed,
      Map<String, Failed> failures) {
    Map<String, ListConsumerGroupOffsetsSpec> specs = new HashMap<>();
    groups.forEach(g -> specs.put(g, new ListConsumerGroupOffsetsSpec()));
    ListConsumerGroupOffsetsResult fetching = admin.listConsumerGroupOffsets(specs);
    for (String group : groups) {
      try {
        committed.put(
            group,
            CommittedOffsets.of(
                await(fetching.partitionsToOffsetAndMetadata(group), deadline), canonical));
      } catch (Failed e) {
        failures.put(group, e);
      }
    }
  }

  /** The configured groups, plus those the cluster lists that the patterns pick. */
  private Collection<String> groups(long deadline) {
    Set<String> groups = new LinkedHashSet<>(configuredGroups);
    if (!configuredGroups.isEmpty() && include == null) {
      return groups;
    }
    Collection<GroupListing> listings;
    try {
      listings = await(admin.listGroups(ListGroupsOptions.forConsumerGroups()).all(), deadline);
    } catch (Failed e) {
      throw new IllegalStateException("cannot list the cluster's groups: " + e.reason("groups"), e);
    }
    for (GroupListing listing : listings) {
      String id = listing.groupId();
      if ((include == null || include.matcher(id).matches())
          && (exclude == null || !exclude.matcher(id).matches())) {
        groups.add(id);
      }
    }
    return groups;
  }

  /** One call; partitions that cannot be answered for get a reason instead of an offset. */
  private Map<TopicPartition, Long> listOffsets(
      Set<TopicPartition> partitions,
      OffsetSpec spec,
      long deadline,
      Map<TopicPartition, String> problems) {
    ListOffsetsResult result = requestOffsets(partitions, spec, deadline);
    Map<TopicPartition, Long> offsets = new HashMap<>();
    for (TopicPartition tp : partitions) {
      collectOffset(result, tp, deadline, offsets, problems);
    }
    return offsets;
  }

  private ListOffsetsResult requestOffsets(
      Set<TopicPartition> partitions, OffsetSpec spec, long deadline) {
    Map<TopicPartition, OffsetSpec> request = new HashMap<>();
    partitions.forEach(tp -> request.put(tp, spec));
    long left = Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime()));
    return admin.listOffsets(
        request, new ListOffsetsOptions().timeoutMs((int) Math.min(left, Integer.MAX_VALUE)));
  }

  private static void collectOffset(
      ListOffsetsResult result,
      TopicPartition tp,
      long deadline,
      Map<TopicPartition, Long> offsets,
      Map<TopicPartition, String> problems) {
    try {
      offsets.put(tp, await(result.partitionResult(tp), deadline).offset());
    } catch (Failed e) {
      problems.put(tp, e.reason("partition"));
    }
  }

  /** Why one future has no answer, in words an operator can act on. */
  private static final class Failed extends Exception {
    private static final long serialVersionUID = 1L;

    Failed(Throwable cause) {
      super(cause);
    }

    boolean notFound() {
      return getCause() instanceof GroupIdNotFoundException;
    }

    boolean timedOut() {
      return getCause() instanceof TimeoutException
          || getCause() instanceof org.apache.kafka.common.errors.TimeoutException;
    }

    String reason(String what) {
      Throwable c = getCause();
      if (c instanceof GroupIdNotFoundException) {
        return "not found: the cluster has no such group (yet, or any more)";
      }
      if (c instanceof GroupAuthorizationException) {
        return "not authorized to describe the group";
      }
      if (c instanceof UnknownTopicOrPartitionException) {
        return "topic deleted or unknown to the cluster";
      }
      if (c instanceof TopicAuthorizationException) {
        return "not authorized to describe the topic";
      }
      if (c instanceof TimeoutException
          || c instanceof org.apache.kafka.common.errors.TimeoutException) {
        return "partition".equals(what)
            ? "no answer from the partition's leader (none, or unreachable)"
            : "no answer from the group's coordinator in time";
      }
      return "unknown: " + Failures.describe(c);
    }
  }

  private static <T> T await(KafkaFuture<T> future, long deadline) throws Failed {
    try {
      return future.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new Failed(e);
    } catch (ExecutionException e) {
      throw new Failed(e.getCause());
    } catch (TimeoutException e) {
      throw new Failed(e);
    }
  }
}
