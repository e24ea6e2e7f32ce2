package dev.courier.retry;

import dev.courier.core.KafkaFutures;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.locks.LockSupport;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;

/**
 * The ladder of a main topic: {@code <topic>.retry.1} ... {@code <topic>.retry.N} and {@code
 * <topic>.dlt}, created with the main topic's partition count (a retried record keeps its
 * partition, so records of one key stay together) and stated retention.
 */
public record RetryTopics(String main, int tiers) {

  private static final Duration TIMEOUT = Duration.ofSeconds(30);

  public String tier(int tier) {
    if (tier < 1 || tier > tiers) {
      throw new IllegalArgumentException("tier must be in [1, " + tiers + "], got " + tier);
    }
    return main + ".retry." + tier;
  }

  public String deadLetter() {
    return main + ".dlt";
  }

  public List<String> all() {
    List<String> all = new ArrayList<>();
    all.add(main);
    for (int t = 1; t <= tiers; t++) {
      all.add(tier(t));
    }
    all.add(deadLetter());
    return all;
  }

  /** New topics reach every broker's metadata a moment after creation: look until they do. */
  private Map<String, TopicDescription> describeWhenVisible(Admin admin) {
    long deadline = System.nanoTime() + TIMEOUT.toNanos();
    while (true) {
      try {
        return KafkaFutures.await(admin.describeTopics(all()).allTopicNames(), TIMEOUT);
      } catch (IllegalStateException e) {
        if (!(e.getCause() instanceof UnknownTopicOrPartitionException)
            || System.nanoTime() > deadline) {
          throw e;
        }
        LockSupport.parkNanos(Duration.ofMillis(100).toNanos());
      }
    }
  }

  /** The tier a topic is (0 for the main topic), or -1 when it is not on this ladder. */
  public int tierOf(String topic) {
    if (topic.equals(main)) {
      return 0;
    }
    String prefix = main + ".retry.";
    if (topic.startsWith(prefix)) {
      String n = topic.substring(prefix.length());
      if (!n.isEmpty() && n.length() < 4 && n.chars().allMatch(c -> c >= '0' && c <= '9')) {
        int tier = Integer.parseInt(n);
        return tier > 0 ? tier : -1;
      }
    }
    return -1;
  }

  /**
   * Tiers above this ladder's top that exist on the cluster, left there by a higher {@code
   * retry.max.attempts}: they are read too, so nothing waiting in them is stranded.
   */
  public List<String> drainTiers(Admin admin) {
    return KafkaFutures.await(admin.listTopics().names(), TIMEOUT).stream()
        .filter(t -> tierOf(t) > tiers)
        .sorted(java.util.Comparator.comparingInt(this::tierOf))
        .toList();
  }

  /**
   * Creates missing tiers and the DLT like the main topic; fails naming the topic when an existing
   * one has another partition count.
   */
  public void create(Admin admin, long tierRetentionMs, long dltRetentionMs) {
    TopicDescription mainTopic;
    try {
      mainTopic =
          KafkaFutures.await(admin.describeTopics(List.of(main)).allTopicNames(), TIMEOUT)
              .get(main);
    } catch (IllegalStateException e) {
      if (e.getCause() instanceof UnknownTopicOrPartitionException) {
        // The tiers and the DLT copy the main topic's partitions, so it has to come first.
        throw new ConfigException(
            RetryConfig.TOPIC,
            main,
            "the topic does not exist; create it first (the retry tiers and the DLT are created"
                + " with its partition count and replication)");
      }
      throw e;
    }
    int partitions = mainTopic.partitions().size();
    short replication = (short) mainTopic.partitions().get(0).replicas().size();
    List<NewTopic> wanted = new ArrayList<>();
    for (int t = 1; t <= tiers; t++) {
      wanted.add(
          new NewTopic(tier(t), partitions, replication)
              .configs(Map.of("retention.ms", String.valueOf(tierRetentionMs))));
    }
    wanted.add(
        new NewTopic(deadLetter(), partitions, replication)
            .configs(Map.of("retention.ms", String.valueOf(dltRetentionMs))));
    admin
        .createTopics(wanted)
        .values()
        .forEach(
            (name, future) -> {
              try {
                future.get();
              } catch (ExecutionException e) {
                if (e.getCause()
                    instanceof org.apache.kafka.common.errors.AuthorizationException denied) {
                  throw new ConfigException(
                      "The consumer's Kafka principal may not create "
                          + name
                          + " ("
                          + denied.getMessage()
                          + "): allow CREATE and DESCRIBE on topics prefixed "
                          + main
                          + ", or create the ladder's topics beforehand");
                }
                if (!(e.getCause() instanceof TopicExistsException)) {
                  throw new IllegalStateException(
                      "cannot create " + name + ": " + e.getCause().getMessage(), e);
                }
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted creating " + name, e);
              }
            });
    Map<String, TopicDescription> existing = describeWhenVisible(admin);
    existing.forEach(
        (name, d) -> {
          if (d.partitions().size() != partitions) {
            throw new IllegalStateException(
                name
                    + " has "
                    + d.partitions().size()
                    + " partitions but "
                    + main
                    + " has "
                    + partitions
                    + ": a retried record must keep its partition");
          }
        });
  }
}
