package dev.courier.retry.internal;

import dev.courier.core.internal.KafkaConnection;
import dev.courier.retry.RetryConfig;
import dev.courier.retry.RetryOrdering;
import dev.courier.retry.RetryTopics;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.RangeAssignor;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a ladder needs before its first poll, made at start: its topics, the consumer of the main
 * topic and tiers, the producer of forwards, and the DLT depth probe.
 */
public final class LadderSetup {

  private static final Logger LOG = LoggerFactory.getLogger(LadderSetup.class);

  /** How often the DLT's depth is counted. */
  private static final Duration DEPTH_EVERY = Duration.ofSeconds(30);

  private LadderSetup() {}

  /**
   * Creates the ladder's topics and clients.
   *
   * @throws org.apache.kafka.common.config.ConfigException naming the setting, when the main topic
   *     is missing or the principal may not create the ladder's topics
   */
  public static LadderLoop.Parts start(
      RetryConfig config,
      RetryTopics topics,
      RetryMetrics metrics,
      LadderProgress progress,
      Clock clock) {
    List<String> drain;
    boolean sharedBlocked = false;
    try (Admin admin = Admin.create(config.clients().admin())) {
      LadderTopics.create(
          admin,
          topics,
          config.getLong(RetryConfig.TOPIC_RETENTION_MS),
          config.getLong(RetryConfig.DLT_RETENTION_MS));
      drain = LadderTopics.drainTiers(admin, topics);
      if (config.ordering() == RetryOrdering.KEY) {
        LadderTopics.createBlocked(admin, topics);
        sharedBlocked = LadderTopics.exists(admin, topics.sharedBlocked());
      }
    }
    List<String> read = new ArrayList<>(topics.all().subList(0, topics.tiers() + 1));
    read.addAll(drain);
    if (!drain.isEmpty()) {
      LOG.info(
          "reading {} too: tiers of the shared ladder (this group's records there go on through"
              + " its own, other groups' are left to them) or above {}={} (drained to {})",
          drain,
          RetryConfig.MAX_ATTEMPTS,
          config.policy().maxAttempts(),
          topics.deadLetter());
    }
    Map<String, Object> cc = consumerSettings(config);
    TierWaits waits =
        new TierWaits(
            Duration.ofMillis(2L * intSetting(cc, ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, 50)),
            4
                * intSetting(
                    cc,
                    ConsumerConfig.MAX_POLL_RECORDS_CONFIG,
                    ConsumerConfig.DEFAULT_MAX_POLL_RECORDS));
    KafkaConsumer<byte[], byte[]> consumer =
        new KafkaConsumer<>(cc, new ByteArrayDeserializer(), new ByteArrayDeserializer());
    KafkaProducer<byte[], byte[]> producer;
    try {
      producer =
          new KafkaProducer<>(
              producerSettings(config), new ByteArraySerializer(), new ByteArraySerializer());
    } catch (RuntimeException e) {
      consumer.close(Duration.ZERO);
      throw e;
    }
    warmUp(producer, topics);
    LadderPublisher publisher =
        new LadderPublisher(
            producer,
            topics,
            config.group(),
            config.getInt(RetryConfig.EXCEPTION_MESSAGE_MAX_CHARS),
            config.getBoolean(RetryConfig.EXCEPTION_STACKTRACE),
            metrics,
            progress);
    ChainStore chains = null;
    if (config.ordering() == RetryOrdering.KEY) {
      Map<String, Object> rc = config.clients().consumer();
      rc.remove(ConsumerConfig.GROUP_ID_CONFIG);
      rc.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
      // A waiting record older than the main topic's log start is reported, not waited for.
      rc.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
      // The DLT's letters are written in transactions: one a former owner left open is not read.
      rc.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
      Duration apiTimeout =
          Duration.ofMillis(intSetting(cc, ConsumerConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 60_000));
      FencedLetters letters =
          new FencedLetters(
              producerSettings(config), config.group() + "." + topics.main() + ".dlt.", apiTimeout);
      publisher.fencedLetters(letters);
      chains =
          new ChainStore(
              new KafkaConsumer<>(rc, new ByteArrayDeserializer(), new ByteArrayDeserializer()),
              producer,
              topics.blocked(),
              topics.deadLetter(),
              sharedBlocked ? topics.sharedBlocked() : null,
              apiTimeout,
              letters);
    }
    DltDepthProbe depth =
        new DltDepthProbe(
                config.clients().admin(),
                topics.deadLetter(),
                metrics.dltDepth,
                metrics.dltDepthCountedAt,
                clock)
            .start(DEPTH_EVERY);
    Duration lease = leaseLength(cc);
    MembershipProbe membership =
        new MembershipProbe(
            new MembershipLease(lease, System::nanoTime),
            Admin.create(config.clients().admin()),
            config.group(),
            lease.dividedBy(2));
    return new LadderLoop.Parts(
        config.clients().bootstrapServersValue(),
        KafkaConnection.requestTimeout(cc),
        consumer,
        publisher,
        depth,
        List.copyOf(read),
        waits,
        metrics,
        new Commits.Limits(
            Duration.ofMillis(intSetting(cc, ConsumerConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 60_000)),
            Duration.ofMillis(intSetting(cc, ConsumerConfig.MAX_POLL_INTERVAL_MS_CONFIG, 300_000))),
        chains,
        membership);
  }

  /**
   * How long a proof of membership lets calls start: the session timeout less a heartbeat interval
   * (the broker's {@code group.consumer.*} defaults, 45 s and 5 s, under {@code
   * group.protocol=consumer}, whose client does not know them).
   */
  private static Duration leaseLength(Map<String, Object> cc) {
    if ("consumer".equalsIgnoreCase(String.valueOf(cc.get("group.protocol")).trim())) {
      return MembershipLease.lengthFor(Duration.ofSeconds(45), Duration.ofSeconds(5));
    }
    return MembershipLease.lengthFor(
        Duration.ofMillis(intSetting(cc, ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, 45_000)),
        Duration.ofMillis(intSetting(cc, ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, 3_000)));
  }

  /**
   * The first send to a topic waits up to {@code max.block.ms} for its metadata, on the loop
   * thread; fetched now, a forward made while the broker is away is queued and times out after
   * {@code delivery.timeout.ms} like any other. A failure here only leaves that wait in place.
   */
  private static void warmUp(KafkaProducer<byte[], byte[]> producer, RetryTopics topics) {
    for (String forwardTo : topics.all().subList(1, topics.tiers() + 2)) {
      try {
        producer.partitionsFor(forwardTo);
      } catch (KafkaException e) {
        LOG.debug("no metadata yet for {}: {}", forwardTo, e.toString());
      }
    }
  }

  private static Map<String, Object> consumerSettings(RetryConfig config) {
    Map<String, Object> cc = config.clients().consumer();
    cc.put(ConsumerConfig.GROUP_ID_CONFIG, config.group());
    cc.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    cc.putIfAbsent(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    // A resumed tier partition is fetched with the next request to its broker; a long-polling
    // fetch in flight (default 500 ms) would make every hop that much late.
    cc.putIfAbsent(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, 50);
    if (config.ordering() == RetryOrdering.KEY) {
      // Partition p of the main topic and of every tier on one member (RetryConfig refuses others).
      if ("consumer".equalsIgnoreCase(String.valueOf(cc.get("group.protocol")).trim())) {
        cc.putIfAbsent("group.remote.assignor", "range");
      } else {
        cc.putIfAbsent(
            ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG, RangeAssignor.class.getName());
      }
      // A tier's records are returned only after the main topic's fetch before them is drained:
      // with 1 MiB fetches a head came back every ~20,000 small records while its key's followers
      // piled up (0.46x of unordered at 1% failures); 256 KiB measured 0.7x, 64 KiB stalled on
      // fetch round trips.
      cc.putIfAbsent(ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, 256 * 1024);
    }
    return cc;
  }

  private static Map<String, Object> producerSettings(RetryConfig config) {
    Map<String, Object> pc = config.clients().producer();
    pc.put(ProducerConfig.ACKS_CONFIG, "all");
    // Producer retries are Kafka's own (idempotent, no duplicates); they are not attempts.
    pc.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
    // Forwarded records carry about 16 failure headers; at the default 16 KiB batch a burst of
    // failures needed ten times the produce requests of the same records bare.
    pc.putIfAbsent(ProducerConfig.BATCH_SIZE_CONFIG, 256 * 1024);
    return pc;
  }

  /** A client setting as given (a number or its text; validated when the client starts). */
  private static int intSetting(Map<String, Object> clientConfig, String key, int otherwise) {
    Object v = clientConfig.get(key);
    return v == null ? otherwise : Integer.parseInt(String.valueOf(v).trim());
  }
}
