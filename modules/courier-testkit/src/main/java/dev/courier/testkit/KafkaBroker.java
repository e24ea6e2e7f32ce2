package dev.courier.testkit;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;

/** A real Kafka broker (KRaft) shared by the tests of one JVM. */
public interface KafkaBroker {

  /** The {@code bootstrap.servers} value clients use. */
  String bootstrapServers();

  /** An Admin client owned by the testkit: use it, do not close it. */
  Admin admin();

  /** Human-readable description, e.g. {@code embedded Kafka 4.3.1 (KRaft, combined node)}. */
  String describe();

  /**
   * Freezes the broker for an outage test: connections stay open but nothing is answered until
   * {@link #resume()}. Available on the Testcontainers backend (the container is paused).
   *
   * @throws UnsupportedOperationException on the embedded backend
   */
  default void pause() {
    throw new UnsupportedOperationException(
        "pausing the broker needs the Testcontainers backend (-Dcourier.infra=testcontainers)");
  }

  /** Lets a paused broker answer again. */
  default void resume() {
    throw new UnsupportedOperationException(
        "pausing the broker needs the Testcontainers backend (-Dcourier.infra=testcontainers)");
  }

  /** Creates a topic with replication factor 1 and waits until its partitions take requests. */
  default void createTopic(String name, int partitions) {
    createTopic(name, partitions, Map.of());
  }

  /** Creates a topic with the given topic configs and waits until its partitions take requests. */
  default void createTopic(String name, int partitions, Map<String, String> configs) {
    NewTopics.create(admin(), new NewTopic(name, partitions, (short) 1).configs(configs));
  }

  /**
   * Records of these topics (every partition) that the group has not committed past: 0 once it has
   * worked through everything written so far.
   */
  default long uncommitted(String group, java.util.Collection<String> topics) {
    try {
      Map<
              org.apache.kafka.common.TopicPartition,
              org.apache.kafka.clients.consumer.OffsetAndMetadata>
          committed =
              admin()
                  .listConsumerGroupOffsets(group)
                  .partitionsToOffsetAndMetadata()
                  .get(30, TimeUnit.SECONDS);
      Map<org.apache.kafka.common.TopicPartition, org.apache.kafka.clients.admin.OffsetSpec>
          latest = new HashMap<>();
      admin()
          .describeTopics(topics)
          .allTopicNames()
          .get(30, TimeUnit.SECONDS)
          .forEach(
              (name, d) ->
                  d.partitions()
                      .forEach(
                          p ->
                              latest.put(
                                  new org.apache.kafka.common.TopicPartition(name, p.partition()),
                                  org.apache.kafka.clients.admin.OffsetSpec.latest())));
      long lag = 0;
      for (var e : admin().listOffsets(latest).all().get(30, TimeUnit.SECONDS).entrySet()) {
        var c = committed.get(e.getKey());
        lag += e.getValue().offset() - (c == null ? 0 : c.offset());
      }
      return lag;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while reading the lag of " + group, e);
    } catch (ExecutionException | TimeoutException e) {
      throw new IllegalStateException("cannot read the lag of " + group + ": " + e.getMessage(), e);
    }
  }

  /** The group's committed offset in one partition (0 when it has none). */
  default long committed(String group, String topic, int partition) {
    try {
      var offset =
          admin()
              .listConsumerGroupOffsets(group)
              .partitionsToOffsetAndMetadata()
              .get(30, TimeUnit.SECONDS)
              .get(new org.apache.kafka.common.TopicPartition(topic, partition));
      return offset == null ? 0 : offset.offset();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while reading offsets of " + group, e);
    } catch (ExecutionException | TimeoutException e) {
      throw new IllegalStateException("cannot read offsets of " + group + ": " + e.getMessage(), e);
    }
  }

  /** How many members the group has now (0 once every consumer has left). */
  default int members(String group) {
    try {
      return admin()
          .describeConsumerGroups(List.of(group))
          .describedGroups()
          .get(group)
          .get(30, TimeUnit.SECONDS)
          .members()
          .size();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while describing " + group, e);
    } catch (ExecutionException | TimeoutException e) {
      throw new IllegalStateException("cannot describe " + group + ": " + e.getMessage(), e);
    }
  }

  /** Producer settings for tests: this broker, {@code acks=all}, idempotence on. */
  default Map<String, Object> producerConfig() {
    Map<String, Object> config = new HashMap<>();
    config.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers());
    config.put(ProducerConfig.ACKS_CONFIG, "all");
    config.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
    config.put(ProducerConfig.LINGER_MS_CONFIG, 5);
    return config;
  }

  /**
   * Courier's client settings for this broker, as every Courier component takes them: {@code
   * bootstrap.servers}, to which a test adds {@code kafka.*} keys and the component's own (a new,
   * mutable map).
   */
  default Map<String, Object> clientSettings() {
    Map<String, Object> settings = new HashMap<>();
    settings.put("bootstrap.servers", bootstrapServers());
    return settings;
  }

  /**
   * Consumer settings for tests: this broker, the group, reading from the earliest offset, and
   * manual commits (Courier commits only after the effect is persisted).
   */
  default Map<String, Object> consumerConfig(String groupId) {
    Map<String, Object> config = new HashMap<>();
    config.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers());
    config.put(ConsumerConfig.GROUP_ID_CONFIG, groupId);
    config.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    config.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    config.put(ConsumerConfig.MAX_POLL_INTERVAL_MS_CONFIG, (int) Duration.ofMinutes(2).toMillis());
    return config;
  }

  /**
   * Reads a topic from the start as strings, in a group of its own, until {@code count} records
   * arrived or the timeout passed; the caller asserts the count, so a shortfall shows what came.
   */
  default List<ConsumerRecord<String, String>> readStrings(
      String topic, int count, Duration timeout) {
    try (KafkaConsumer<String, String> consumer =
        new KafkaConsumer<>(
            consumerConfig(UniqueNames.group("reader")),
            new StringDeserializer(),
            new StringDeserializer())) {
      consumer.subscribe(List.of(topic));
      return Polling.pollUntil(consumer, count, timeout);
    }
  }

  /**
   * Every record of one partition, from its start to its end as {@code isolation} reads it: {@code
   * read_committed} stops at the last stable offset and leaves aborted transactions out.
   */
  default List<ConsumerRecord<byte[], byte[]>> readPartition(TopicPartition tp, String isolation) {
    Map<String, Object> config = consumerConfig(UniqueNames.group("reader"));
    config.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, isolation);
    List<ConsumerRecord<byte[], byte[]>> records = new ArrayList<>();
    try (KafkaConsumer<byte[], byte[]> consumer =
        new KafkaConsumer<>(config, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
      consumer.assign(List.of(tp));
      consumer.seekToBeginning(List.of(tp));
      long end = consumer.endOffsets(List.of(tp)).get(tp);
      while (consumer.position(tp) < end) {
        consumer.poll(Duration.ofMillis(200)).records(tp).forEach(records::add);
      }
    }
    return records;
  }
}
