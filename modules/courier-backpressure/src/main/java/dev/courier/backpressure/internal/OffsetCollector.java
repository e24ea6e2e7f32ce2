package dev.courier.backpressure.internal;

import dev.courier.backpressure.internal.ClusterOffsets.GroupOffsets;
import dev.courier.backpressure.internal.ClusterOffsets.Owner;
import dev.courier.core.KafkaFutures;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.GroupListing;
import org.apache.kafka.clients.admin.ListConsumerGroupOffsetsSpec;
import org.apache.kafka.clients.admin.ListGroupsOptions;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.MemberDescription;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads a tick's offsets with batched Admin calls: one ListGroups, one DescribeGroups and one
 * OffsetFetch per coordinator for all groups (KIP-709), and one ListOffsets per partition leader
 * for every partition of every group. Log-start offsets are asked for only when a group owns a
 * partition it never committed and reads it from the earliest offset.
 */
public final class OffsetCollector {

  private static final Logger LOG = LoggerFactory.getLogger(OffsetCollector.class);

  private final Admin admin;
  private final List<String> configuredGroups;
  private final Pattern exclude;
  private final boolean uncommittedFromEarliest;
  private final Duration timeout;

  public OffsetCollector(
      Admin admin,
      List<String> configuredGroups,
      Pattern exclude,
      boolean uncommittedFromEarliest,
      Duration timeout) {
    this.admin = admin;
    this.configuredGroups = List.copyOf(configuredGroups);
    this.exclude = exclude;
    this.uncommittedFromEarliest = uncommittedFromEarliest;
    this.timeout = timeout;
  }

  public ClusterOffsets collect() {
    Collection<String> groups = groups();
    if (groups.isEmpty()) {
      return new ClusterOffsets(Map.of(), Map.of(), Map.of());
    }
    Map<String, ListConsumerGroupOffsetsSpec> specs = new HashMap<>();
    groups.forEach(g -> specs.put(g, new ListConsumerGroupOffsetsSpec()));
    // Both in flight at once: they go to the same coordinators and do not depend on each other.
    KafkaFuture<Map<String, ConsumerGroupDescription>> describing =
        admin.describeConsumerGroups(groups).all();
    KafkaFuture<Map<String, Map<TopicPartition, OffsetAndMetadata>>> fetching =
        admin.listConsumerGroupOffsets(specs).all();
    Map<String, ConsumerGroupDescription> descriptions = await(describing);
    Map<String, Map<TopicPartition, OffsetAndMetadata>> committed = await(fetching);

    Map<String, GroupOffsets> result = new HashMap<>();
    Set<TopicPartition> partitions = new HashSet<>();
    Set<TopicPartition> needStart = new HashSet<>();
    for (String group : groups) {
      ConsumerGroupDescription description = descriptions.get(group);
      Map<TopicPartition, Owner> owners = new HashMap<>();
      int members = 0;
      String state = "Dead";
      if (description != null) {
        state = description.groupState().toString();
        members = description.members().size();
        for (MemberDescription m : description.members()) {
          Owner owner = new Owner(m.consumerId(), m.host(), m.clientId());
          m.assignment().topicPartitions().forEach(tp -> owners.put(tp, owner));
        }
      }
      Map<TopicPartition, Long> offsets = new HashMap<>();
      committed
          .getOrDefault(group, Map.of())
          .forEach(
              (tp, om) -> {
                if (om != null) {
                  offsets.put(tp, om.offset());
                }
              });
      partitions.addAll(offsets.keySet());
      partitions.addAll(owners.keySet());
      if (uncommittedFromEarliest) {
        owners.keySet().stream().filter(tp -> !offsets.containsKey(tp)).forEach(needStart::add);
      }
      result.put(group, new GroupOffsets(group, state, members, offsets, owners));
    }
    Map<TopicPartition, Long> ends = listOffsets(partitions, OffsetSpec.latest());
    Map<TopicPartition, Long> starts =
        needStart.isEmpty() ? Map.of() : listOffsets(needStart, OffsetSpec.earliest());
    return new ClusterOffsets(result, ends, starts);
  }

  private Collection<String> groups() {
    if (!configuredGroups.isEmpty()) {
      return configuredGroups;
    }
    Collection<GroupListing> listings =
        await(admin.listGroups(ListGroupsOptions.forConsumerGroups()).all());
    List<String> groups = new ArrayList<>();
    for (GroupListing listing : listings) {
      if (exclude == null || !exclude.matcher(listing.groupId()).matches()) {
        groups.add(listing.groupId());
      }
    }
    return groups;
  }

  /** One call; partitions whose topic went away are logged and left out, not fatal. */
  private Map<TopicPartition, Long> listOffsets(Set<TopicPartition> partitions, OffsetSpec spec) {
    Map<TopicPartition, OffsetSpec> request = new HashMap<>();
    partitions.forEach(tp -> request.put(tp, spec));
    ListOffsetsResult result = admin.listOffsets(request);
    Map<TopicPartition, Long> offsets = new HashMap<>();
    for (TopicPartition tp : partitions) {
      try {
        offsets.put(tp, await(result.partitionResult(tp)).offset());
      } catch (IllegalStateException e) {
        LOG.warn("no offsets for {}: {}", tp, e.getMessage());
      }
    }
    return offsets;
  }

  private <T> T await(KafkaFuture<T> future) {
    return KafkaFutures.await(future, timeout);
  }
}
