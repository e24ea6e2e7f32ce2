package dev.courier.testkit;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.common.TopicPartition;

/** Creates topics for tests and returns once every partition's leader takes requests. */
final class NewTopics {

  private static final long TIMEOUT_SECONDS = 30;

  private NewTopics() {}

  static void create(Admin admin, NewTopic topic) {
    try {
      admin.createTopics(List.of(topic)).all().get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
      awaitLeaders(admin, topic.name(), topic.numPartitions());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while creating topic " + topic.name(), e);
    } catch (ExecutionException | TimeoutException e) {
      throw new IllegalStateException(
          "could not create topic " + topic.name() + ": " + e.getMessage(), e);
    }
  }

  /**
   * The controller has the topic once it is created; a broker may not have applied it yet, and its
   * metadata can name a leader before the leader takes requests. An idempotent producer's first
   * batch is then refused (NOT_LEADER_OR_FOLLOWER) while its next ones are accepted, and the first
   * fails OUT_OF_ORDER_SEQUENCE until delivery.timeout.ms: a test's records silently missing. Only
   * a partition's leader answers a ListOffsets, so one answered for every partition means all are
   * ready.
   */
  private static void awaitLeaders(Admin admin, String name, int partitions)
      throws InterruptedException {
    Map<TopicPartition, OffsetSpec> ends = new HashMap<>();
    for (int p = 0; p < partitions; p++) {
      ends.put(new TopicPartition(name, p), OffsetSpec.latest());
    }
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(TIMEOUT_SECONDS);
    while (true) {
      try {
        admin.listOffsets(ends).all().get(5, TimeUnit.SECONDS);
        return;
      } catch (ExecutionException | TimeoutException notYet) {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException(
              "topic " + name + " created but its leaders not ready within 30 s: " + notYet);
        }
        // Plain code, not Awaitility: the lab runs this outside any test classpath.
        Thread.sleep(20);
      }
    }
  }
}
