package dev.courier.testkit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.tools.consumer.OffsetsMessageFormatter;

/**
 * Every offset commit a group made, as the broker took it: read from {@code __consumer_offsets} and
 * decoded by Kafka's own {@code OffsetsMessageFormatter} (what {@code kafka-console-consumer
 * --formatter org.apache.kafka.tools.consumer.OffsetsMessageFormatter} prints). A group's commits
 * are all in one partition of that topic, in the order the coordinator applied them, so the history
 * says whether a partition's committed offset ever moved back.
 */
public final class CommitHistory {

  private static final String OFFSETS_TOPIC = "__consumer_offsets";
  private static final ObjectMapper JSON = new ObjectMapper();

  /** One commit of one partition, in the order the coordinator applied it. */
  public record Commit(TopicPartition partition, long offset, long committedAt) {}

  private final String group;
  private final List<Commit> commits;

  private CommitHistory(String group, List<Commit> commits) {
    this.group = group;
    this.commits = commits;
  }

  /** The group's commits so far, read to the end of {@code __consumer_offsets}. */
  public static CommitHistory of(KafkaBroker kafka, String group) {
    Map<String, Object> config = new HashMap<>();
    config.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
    config.put(ConsumerConfig.EXCLUDE_INTERNAL_TOPICS_CONFIG, false);
    config.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    List<Commit> commits = new ArrayList<>();
    OffsetsMessageFormatter formatter = new OffsetsMessageFormatter();
    try (KafkaConsumer<byte[], byte[]> consumer =
        new KafkaConsumer<>(config, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
      List<TopicPartition> partitions =
          consumer.partitionsFor(OFFSETS_TOPIC, Duration.ofSeconds(30)).stream()
              .map(PartitionInfo::partition)
              .map(p -> new TopicPartition(OFFSETS_TOPIC, p))
              .toList();
      consumer.assign(partitions);
      consumer.seekToBeginning(partitions);
      Map<TopicPartition, Long> end = consumer.endOffsets(partitions, Duration.ofSeconds(30));
      long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
      while (!atEnd(consumer, end)) {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException("could not read " + OFFSETS_TOPIC + " to its end");
        }
        for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
          Commit c = decode(formatter, r, group);
          if (c != null) {
            commits.add(c);
          }
        }
      }
    }
    return new CommitHistory(group, List.copyOf(commits));
  }

  public List<Commit> commits() {
    return commits;
  }

  /** The commits of one partition, in order. */
  public List<Long> offsets(TopicPartition tp) {
    return commits.stream().filter(c -> c.partition().equals(tp)).map(Commit::offset).toList();
  }

  /**
   * Every commit that took a partition's committed offset below the one before it, described (empty
   * when every partition only moved forward).
   */
  public List<String> backwardMoves() {
    Map<TopicPartition, Long> last = new HashMap<>();
    List<String> moves = new ArrayList<>();
    for (int i = 0; i < commits.size(); i++) {
      Commit c = commits.get(i);
      Long before = last.put(c.partition(), c.offset());
      if (before != null && c.offset() < before) {
        moves.add(
            group
                + " "
                + c.partition()
                + ": "
                + before
                + " -> "
                + c.offset()
                + " (commit #"
                + i
                + ")");
      }
    }
    return moves;
  }

  /** How many commits each partition had, for a report. */
  public Map<TopicPartition, Long> countsByPartition() {
    return commits.stream()
        .collect(Collectors.groupingBy(Commit::partition, Collectors.counting()));
  }

  private static boolean atEnd(
      KafkaConsumer<byte[], byte[]> consumer, Map<TopicPartition, Long> end) {
    for (Map.Entry<TopicPartition, Long> e : end.entrySet()) {
      if (consumer.position(e.getKey(), Duration.ofSeconds(30)) < e.getValue()) {
        return false;
      }
    }
    return true;
  }

  /** The record as a commit of {@code group}, or null (another group's, a tombstone, metadata). */
  private static Commit decode(
      OffsetsMessageFormatter formatter, ConsumerRecord<byte[], byte[]> r, String group) {
    if (r.key() == null || r.value() == null) {
      return null; // a deleted offset, or a record without a key
    }
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (PrintStream print = new PrintStream(out, true, StandardCharsets.UTF_8)) {
      formatter.writeTo(r, print);
    }
    String line = out.toString(StandardCharsets.UTF_8).trim();
    if (line.isEmpty()) {
      return null; // not an offset commit (group metadata): the formatter prints nothing
    }
    JsonNode json;
    try {
      json = JSON.readTree(line);
    } catch (java.io.IOException e) {
      throw new IllegalStateException("unreadable formatter output: " + line, e);
    }
    JsonNode key = json.path("key").path("data");
    JsonNode value = json.path("value").path("data");
    if (!group.equals(key.path("group").asText()) || !value.has("offset")) {
      return null;
    }
    return new Commit(
        new TopicPartition(key.path("topic").asText(), key.path("partition").asInt()),
        value.path("offset").asLong(),
        value.path("commitTimestamp").asLong());
  }
}
