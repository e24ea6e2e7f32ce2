package dev.courier.retry.internal;

import dev.courier.core.internal.KafkaFutures;
import dev.courier.retry.RetryConfig;
import dev.courier.retry.RetryTopics;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.locks.LockSupport;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.errors.AuthorizationException;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;

/**
 * Creates a ladder's topics at start, as spring-kafka's {@code RetryTopicConfigurer} does: the
 * tiers and the DLT with the main topic's partition count (a retried record keeps its partition, so
 * records of one key stay together) and their stated retention; and finds tiers above the ladder's
 * top left by a higher {@code retry.max.attempts}, to drain them.
 */
public final class LadderTopics {

  private static final Duration TIMEOUT = Duration.ofSeconds(30);

  private LadderTopics() {}

  /**
   * Creates missing tiers and the DLT like the main topic; fails naming the topic when an existing
   * one has another partition count.
   *
   * @throws ConfigException the main topic does not exist, or the principal may not create topics
   */
  public static void create(
      Admin admin, RetryTopics topics, long tierRetentionMs, long dltRetentionMs) {
    String main = topics.main();
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
    for (int t = 1; t <= topics.tiers(); t++) {
      wanted.add(
          new NewTopic(topics.tier(t), partitions, replication)
              .configs(Map.of("retention.ms", String.valueOf(tierRetentionMs))));
    }
    wanted.add(
        new NewTopic(topics.deadLetter(), partitions, replication)
            .configs(Map.of("retention.ms", String.valueOf(dltRetentionMs))));
    admin.createTopics(wanted).values().forEach((name, future) -> awaitCreated(main, name, future));
    describeWhenVisible(admin, topics.all())
        .forEach(
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

  /**
   * Creates the compacted topic of blocked keys ({@code retry.ordering=key}) like the main topic:
   * partition {@code p} holds the keys of the main topic's partition {@code p}.
   *
   * @throws IllegalStateException it exists with another partition count
   */
  public static void createBlocked(Admin admin, RetryTopics topics) {
    TopicDescription main = describeWhenVisible(admin, List.of(topics.main())).get(topics.main());
    int partitions = main.partitions().size();
    short replication = (short) main.partitions().get(0).replicas().size();
    NewTopic blocked =
        new NewTopic(topics.blocked(), partitions, replication)
            .configs(Map.of("cleanup.policy", "compact"));
    admin
        .createTopics(List.of(blocked))
        .values()
        .forEach((name, future) -> awaitCreated(topics.main(), name, future));
    int has =
        describeWhenVisible(admin, List.of(topics.blocked()))
            .get(topics.blocked())
            .partitions()
            .size();
    if (has != partitions) {
      throw new IllegalStateException(
          topics.blocked()
              + " has "
              + has
              + " partitions but "
              + topics.main()
              + " has "
              + partitions
              + ": each partition's blocked keys live in the partition of the same number");
    }
  }

  /**
   * Tiers that exist on the cluster and are read besides this ladder's own, so nothing waiting in
   * them is stranded: its own above its top, left there by a higher {@code retry.max.attempts}, and
   * the shared tiers every group on the topic used before each had its own ({@link
   * RetryTopics#shared}), where this group's records are handled and other groups' left to them.
   */
  public static List<String> drainTiers(Admin admin, RetryTopics topics) {
    return KafkaFutures.await(admin.listTopics().names(), TIMEOUT).stream()
        .filter(t -> topics.tierOf(t) > topics.tiers() || topics.shared(t))
        .sorted(Comparator.comparingInt(topics::tierOf))
        .toList();
  }

  /** Whether the topic exists on the cluster. */
  public static boolean exists(Admin admin, String topic) {
    return KafkaFutures.await(admin.listTopics().names(), TIMEOUT).contains(topic);
  }

  private static void awaitCreated(
      String main, String name, org.apache.kafka.common.KafkaFuture<Void> future) {
    try {
      future.get();
    } catch (ExecutionException e) {
      if (e.getCause() instanceof AuthorizationException denied) {
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
  }

  /** New topics reach every broker's metadata a moment after creation: look until they do. */
  private static Map<String, TopicDescription> describeWhenVisible(
      Admin admin, List<String> names) {
    long deadline = System.nanoTime() + TIMEOUT.toNanos();
    while (true) {
      try {
        return KafkaFutures.await(admin.describeTopics(names).allTopicNames(), TIMEOUT);
      } catch (IllegalStateException e) {
        if (!(e.getCause() instanceof UnknownTopicOrPartitionException)
            || System.nanoTime() > deadline) {
          throw e;
        }
        LockSupport.parkNanos(Duration.ofMillis(100).toNanos());
      }
    }
  }
}
