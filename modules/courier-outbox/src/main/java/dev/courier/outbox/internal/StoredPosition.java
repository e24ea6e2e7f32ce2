package dev.courier.outbox.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.courier.outbox.OutboxRelayConfig;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * The position a relay's engine last stored in its offset topic, where Debezium's Kafka offset
 * store keeps it under Kafka Connect's key for the engine; {@link SlotIdentity} holds it against
 * the slot.
 */
public final class StoredPosition {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Duration READ_TIMEOUT = Duration.ofSeconds(30);

  /** Records read from a partition's end first; each further window is four times larger. */
  private static final long FIRST_WINDOW = 64;

  private StoredPosition() {}

  /**
   * A stored position: Debezium's LSN, and the server it was read from when the relay stored that
   * (absent in positions stored before the relay kept it).
   */
  public record Position(long lsn, Optional<ServerIdentity> server) {

    /** A position without a server, as older relays stored them. */
    public static Position at(long lsn) {
      return new Position(lsn, Optional.empty());
    }

    /** Debezium PostgreSQL's offset value, with the relay's fields; empty when it has no LSN. */
    public static Optional<Position> parse(byte[] value) {
      if (value == null) {
        return Optional.empty();
      }
      try {
        JsonNode v = JSON.readTree(value);
        long lsn = -1;
        for (String field : new String[] {"lsn_commit", "lsn_proc", "lsn"}) {
          if (v.hasNonNull(field)) {
            lsn = Math.max(lsn, v.get(field).asLong());
          }
        }
        return lsn < 0 ? Optional.empty() : Optional.of(new Position(lsn, ServerIdentity.of(v)));
      } catch (IOException e) {
        return Optional.empty();
      }
    }
  }

  /**
   * The LSN the relay last stored for its engine in the offset topic (Debezium's lsn_commit).
   *
   * <p>Read from the end backwards, a window at a time: the relay's own newest record is almost
   * always the last of its partition, so a start reads a few records instead of every position
   * stored since the topic was last compacted (a topic is compacted only once a segment rolls, so a
   * day of positions stored every 250 ms is hundreds of thousands of records).
   */
  public static Optional<Position> read(OutboxRelayConfig config) throws Outage {
    String topic = config.getString(OutboxRelayConfig.OFFSET_STORAGE_TOPIC);
    String name = config.getString(OutboxRelayConfig.RELAY_NAME);
    Map<String, Object> settings = config.clients().consumer();
    settings.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    // What a fenced leader's aborted transaction wrote is not a position (PositionWriter).
    settings.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    settings.put(ConsumerConfig.CLIENT_ID_CONFIG, name + "-position");
    KafkaConsumer<byte[], byte[]> consumer =
        new KafkaConsumer<>(settings, new ByteArrayDeserializer(), new ByteArrayDeserializer());
    try {
      List<TopicPartition> parts = new ArrayList<>();
      consumer
          .partitionsFor(topic, READ_TIMEOUT)
          .forEach(p -> parts.add(new TopicPartition(topic, p.partition())));
      Map<TopicPartition, Long> begins = consumer.beginningOffsets(parts, READ_TIMEOUT);
      Map<TopicPartition, Long> ends = consumer.endOffsets(parts, READ_TIMEOUT);
      Deadline deadline = new Deadline(topic);
      OffsetKey ours = new OffsetKey(name, config.cdcPrefix());
      // Connect keeps one key in one partition; should it show up in several, the furthest
      // position is the one a gap must be measured from.
      Optional<Position> stored = Optional.empty();
      for (TopicPartition tp : parts) {
        Optional<ConsumerRecord<byte[], byte[]>> newest =
            newestOf(consumer, tp, begins.get(tp), ends.get(tp), ours, deadline);
        if (newest.isPresent()) {
          Optional<Position> position = Position.parse(newest.get().value());
          if (position.isPresent()
              && (stored.isEmpty() || position.get().lsn() > stored.get().lsn())) {
            stored = position;
          }
        }
      }
      return stored;
    } catch (org.apache.kafka.common.KafkaException e) {
      throw new Outage("cannot read the relay's stored position from " + topic + ": " + e, e);
    } finally {
      // Without a group there is nothing to commit or leave. A graceful close would end the
      // fetch session with one more fetch, which the broker holds for fetch.max.wait.ms: half a
      // second of every start.
      consumer.close(Duration.ZERO);
    }
  }

  /** The newest record of the key in {@code [begin, end)}, read in windows growing backwards. */
  private static Optional<ConsumerRecord<byte[], byte[]>> newestOf(
      KafkaConsumer<byte[], byte[]> consumer,
      TopicPartition tp,
      long begin,
      long end,
      OffsetKey key,
      Deadline deadline)
      throws Outage {
    consumer.assign(List.of(tp));
    long to = end;
    long window = FIRST_WINDOW;
    while (to > begin) {
      long from = Math.max(begin, to - window);
      consumer.seek(tp, from);
      ConsumerRecord<byte[], byte[]> newest = null;
      while (consumer.position(tp) < to) {
        deadline.check();
        for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
          if (r.offset() < to && key.matches(r.key())) {
            newest = r;
          }
        }
      }
      if (newest != null) {
        return Optional.of(newest);
      }
      to = from;
      window *= 4;
    }
    return Optional.empty();
  }

  /** The whole read's time limit. */
  private static final class Deadline {
    private final String topic;
    private final long at = System.nanoTime() + READ_TIMEOUT.toNanos();

    Deadline(String topic) {
      this.topic = topic;
    }

    void check() throws Outage {
      if (System.nanoTime() > at) {
        throw new Outage("cannot read the relay's stored position from " + topic, null);
      }
    }
  }

  /**
   * Kafka Connect's offset key of one engine, {@code ["<engine name>",{"server":"<topic
   * prefix>"}]}. A key once found to be it (or not) is not parsed again.
   */
  private static final class OffsetKey {
    private final String name;
    private final String server;
    private byte[] known;

    OffsetKey(String name, String server) {
      this.name = name;
      this.server = server;
    }

    boolean matches(byte[] key) {
      if (key == null) {
        return false;
      }
      if (known != null && Arrays.equals(known, key)) {
        return true;
      }
      if (isOurs(key, name, server)) {
        known = key;
        return true;
      }
      return false;
    }
  }

  /** Kafka Connect's offset key: {@code ["<engine name>",{"server":"<topic prefix>"}]}. */
  private static boolean isOurs(byte[] key, String name, String server) {
    try {
      JsonNode k = JSON.readTree(key);
      return k.isArray()
          && k.size() == 2
          && name.equals(k.get(0).asText())
          && server.equals(k.get(1).path("server").asText());
    } catch (IOException e) {
      return false;
    }
  }
}
