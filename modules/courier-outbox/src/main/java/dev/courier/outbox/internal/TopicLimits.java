package dev.courier.outbox.internal;

import dev.courier.outbox.OutboxRelayConfig;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.header.Header;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The largest record batch each topic takes ({@code max.message.bytes}). The producer checks a
 * record against {@code max.request.size} while {@code send()} runs, but the broker checks it
 * against the topic's limit only when it arrives, after later records were sent: under {@code
 * outbox.invalid.row.policy=fail} those would be in Kafka before the row. A record whose smallest
 * possible encoding is over the topic's limit is refused here, before anything after it is sent. A
 * limit that cannot be read refuses nothing (the broker still does).
 */
final class TopicLimits implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(TopicLimits.class);

  /** A record batch's header (magic 2), and one byte for each of a record's seven varints. */
  private static final int BATCH_HEADER = 61;

  private static final int RECORD_FIELDS = 7;

  /** Smaller records are never looked at: no topic's limit is that small in practice. */
  private static final int WORTH_ASKING = 1024;

  private final Map<String, Object> adminSettings;
  private final Map<String, OptionalInt> limits = new ConcurrentHashMap<>();
  private Admin admin;

  TopicLimits(OutboxRelayConfig config) {
    this.adminSettings = config.clients().admin();
  }

  /** The topic's limit when {@code record} certainly exceeds it, else empty. */
  OptionalInt exceeded(ProducerRecord<byte[], byte[]> record) {
    long smallest = smallestEncoding(record);
    if (smallest <= WORTH_ASKING) {
      return OptionalInt.empty();
    }
    OptionalInt limit = limits.get(record.topic());
    if (limit == null) {
      limit = read(record.topic());
      if (limit.isPresent()) {
        // Only a limit read is kept: a topic not there yet, or Kafka away, is asked again.
        limits.put(record.topic(), limit);
      }
    }
    return limit.isPresent() && smallest > limit.getAsInt() ? limit : OptionalInt.empty();
  }

  static long smallestEncoding(ProducerRecord<byte[], byte[]> record) {
    long size = BATCH_HEADER + RECORD_FIELDS;
    size += record.key() == null ? 0 : record.key().length;
    size += record.value() == null ? 0 : record.value().length;
    for (Header h : record.headers()) {
      size += 2 + h.key().getBytes(StandardCharsets.UTF_8).length;
      size += h.value() == null ? 0 : h.value().length;
    }
    return size;
  }

  private synchronized OptionalInt read(String topic) {
    try {
      if (admin == null) {
        admin = Admin.create(adminSettings);
      }
      ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, topic);
      Config config =
          admin.describeConfigs(List.of(resource)).all().get(10, TimeUnit.SECONDS).get(resource);
      var entry = config == null ? null : config.get(TopicConfig.MAX_MESSAGE_BYTES_CONFIG);
      return entry == null || entry.value() == null
          ? OptionalInt.empty()
          : OptionalInt.of(Integer.parseInt(entry.value()));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return OptionalInt.empty();
    } catch (Exception e) {
      // Not created yet, not described (no DESCRIBE_CONFIGS), Kafka away: the broker decides.
      LOG.debug("max.message.bytes of {} unknown: {}", topic, e.toString());
      return OptionalInt.empty();
    }
  }

  @Override
  public synchronized void close() {
    if (admin != null) {
      admin.close(java.time.Duration.ofSeconds(5));
      admin = null;
    }
  }
}
