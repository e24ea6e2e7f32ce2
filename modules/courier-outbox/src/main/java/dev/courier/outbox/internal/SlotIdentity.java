package dev.courier.outbox.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.courier.outbox.OutboxRelayConfig;
import java.io.IOException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * Whether the replication slot is the one the relay's stored position came from. A relay that
 * stored a position streamed from a slot that, from then on, holds every change after it. If the
 * slot is gone (dropped, or lost in a failover to a standby that did not have it) or is ahead of
 * the stored position (recreated, or read by someone else), the changes in between are gone, and
 * following the slot silently would lose them.
 */
public final class SlotIdentity {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Duration READ_TIMEOUT = Duration.ofSeconds(30);

  /** What the comparison found. */
  public record Verdict(boolean gap, String description) {}

  private SlotIdentity() {}

  /**
   * @param stored the position the relay stored, read from Kafka (see {@link #storedPosition})
   */
  public static Verdict check(
      OutboxRelayConfig config, PostgresAccess postgres, OptionalLong stored) throws Outage {
    String slot = config.getString(OutboxRelayConfig.SLOT);
    Optional<Long> slotAt = slotPosition(postgres, slot);
    if (stored.isEmpty()) {
      return new Verdict(
          false,
          slotAt
              .map(lsn -> "no stored position; starting from slot " + slot + " at " + lsn(lsn))
              .orElse("first start: slot " + slot + " will be created"));
    }
    if (slotAt.isEmpty()) {
      return new Verdict(
          true,
          "replication slot "
              + slot
              + " does not exist, but the relay stored a position at "
              + lsn(stored.getAsLong())
              + ": the slot was dropped, or PostgreSQL failed over to a server without it, and"
              + " changes committed since are no longer in any slot");
    }
    if (slotAt.get() > stored.getAsLong()) {
      return new Verdict(
          true,
          "replication slot "
              + slot
              + " is at "
              + lsn(slotAt.get())
              + ", ahead of the relay's stored position "
              + lsn(stored.getAsLong())
              + ": it was recreated or read by someone else, and the changes in between are"
              + " gone");
    }
    return new Verdict(
        false,
        "slot "
            + slot
            + " at "
            + lsn(slotAt.get())
            + ", stored position "
            + lsn(stored.getAsLong()));
  }

  private static Optional<Long> slotPosition(PostgresAccess postgres, String slot) throws Outage {
    try (Connection c = postgres.connect();
        PreparedStatement ps =
            c.prepareStatement(
                "SELECT (confirmed_flush_lsn - '0/0')::bigint FROM pg_replication_slots"
                    + " WHERE slot_name = ? AND database = current_database()")) {
      ps.setString(1, slot);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? Optional.of(rs.getLong(1)) : Optional.empty();
      }
    } catch (SQLException e) {
      throw postgres.classify(e);
    }
  }

  /** The LSN the relay last stored for its engine in the offset topic (Debezium's lsn_commit). */
  public static OptionalLong storedPosition(OutboxRelayConfig config) throws Outage {
    String topic = config.getString(OutboxRelayConfig.OFFSET_TOPIC);
    String name = config.getString(OutboxRelayConfig.NAME);
    Map<String, Object> settings = config.clients().consumer();
    settings.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    settings.put(ConsumerConfig.CLIENT_ID_CONFIG, name + "-position");
    try (KafkaConsumer<byte[], byte[]> consumer =
        new KafkaConsumer<>(settings, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
      List<TopicPartition> parts = new ArrayList<>();
      consumer
          .partitionsFor(topic, READ_TIMEOUT)
          .forEach(p -> parts.add(new TopicPartition(topic, p.partition())));
      consumer.assign(parts);
      consumer.seekToBeginning(parts);
      Map<TopicPartition, Long> ends = consumer.endOffsets(parts, READ_TIMEOUT);
      OptionalLong last = OptionalLong.empty();
      long deadline = System.nanoTime() + READ_TIMEOUT.toNanos();
      while (parts.stream().anyMatch(tp -> consumer.position(tp) < ends.get(tp))) {
        if (System.nanoTime() > deadline) {
          throw new Outage("cannot read the relay's stored position from " + topic, null);
        }
        for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
          if (r.key() != null && isOurs(r.key(), name, config.cdcPrefix())) {
            last = r.value() == null ? OptionalLong.empty() : lsnOf(r.value());
          }
        }
      }
      return last;
    } catch (org.apache.kafka.common.KafkaException e) {
      throw new Outage("cannot read the relay's stored position from " + topic + ": " + e, e);
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

  private static OptionalLong lsnOf(byte[] value) {
    try {
      JsonNode v = JSON.readTree(value);
      long lsn = -1;
      for (String field : new String[] {"lsn_commit", "lsn_proc", "lsn"}) {
        if (v.hasNonNull(field)) {
          lsn = Math.max(lsn, v.get(field).asLong());
        }
      }
      return lsn < 0 ? OptionalLong.empty() : OptionalLong.of(lsn);
    } catch (IOException e) {
      return OptionalLong.empty();
    }
  }

  /** PostgreSQL's notation, e.g. {@code 0/16B3748}. */
  static String lsn(long value) {
    return Long.toHexString(value >>> 32).toUpperCase()
        + "/"
        + Long.toHexString(value & 0xFFFFFFFFL).toUpperCase();
  }
}
