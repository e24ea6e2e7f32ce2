package dev.courier.benchmarks;

import dev.courier.outbox.OutboxEvent;
import dev.courier.outbox.OutboxWriter;
import dev.courier.testkit.KafkaProcess;
import dev.courier.testkit.PostgresProcess;
import dev.courier.testkit.UniqueNames;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * {@link RelayFaultRun}'s load: a writer committing events for 20 keys at a steady rate, each with
 * its key's next sequence number, and a consumer reading the events and the dead letters; both
 * report to the run's {@link DeliveryLedger}.
 */
final class RelayFaultLoad {

  private static final int KEYS = 20;

  private final DeliveryLedger ledger;
  private final Random random;
  private final int perSecond;

  /** The events written too large for Kafka, by event id: they belong in the dead letters. */
  private final Map<String, String> oversized = new ConcurrentHashMap<>();

  private final AtomicBoolean writeOversized = new AtomicBoolean();

  RelayFaultLoad(DeliveryLedger ledger, Random random, int perSecond) {
    this.ledger = ledger;
    this.random = random;
    this.perSecond = perSecond;
  }

  /** The next event written is too large for Kafka (the run's policy parks it). */
  void writeOversizedNext() {
    writeOversized.set(true);
  }

  /** Commits events at a steady rate; a commit that fails is not counted as committed. */
  void write(PostgresProcess pg, AtomicBoolean stop) {
    long[] seq = new long[KEYS];
    long interval = Duration.ofSeconds(1).toNanos() / perSecond;
    long next = System.nanoTime();
    OutboxWriter writer = OutboxWriter.create();
    Connection c = null;
    while (!stop.get()) {
      int key = random.nextInt(KEYS);
      long n = seq[key]++;
      boolean tooLarge = writeOversized.getAndSet(false);
      // Over max.request.size: Kafka refuses it for good, and the policy parks it.
      String pad = tooLarge ? ",\"pad\":\"" + "x".repeat(1_100_000) + "\"" : "";
      OutboxEvent event =
          OutboxEvent.builder()
              .aggregate("account", "k" + key)
              .eventType("E")
              .json("{\"key\":\"k" + key + "\"" + pad + ",\"seq\":" + n + "}")
              .build();
      try {
        if (c == null) {
          c = pg.dataSource("postgres").getConnection();
          c.setAutoCommit(false);
        }
        writer.write(c, event);
        c.commit();
        if (tooLarge) {
          oversized.put(event.eventId().toString(), "k" + key + ":" + n);
        }
        ledger.committed("k" + key, n);
      } catch (SQLException e) {
        close(c);
        c = null; // PostgreSQL went away; the event may or may not be committed
      }
      next += interval;
      long wait = next - System.nanoTime();
      if (wait > 0) {
        LockSupport.parkNanos(wait); // a steady commit rate is the point
      } else if (c == null) {
        LockSupport.parkNanos(Duration.ofMillis(100).toNanos()); // reconnecting
        next = System.nanoTime();
      }
    }
    close(c);
  }

  private static void close(Connection c) {
    if (c != null) {
      try {
        c.close();
      } catch (SQLException e) {
        // gone with the server
      }
    }
  }

  /** Reads the events and the dead letters (keyed by event id) into the ledger. */
  void consume(KafkaProcess kafka, List<String> topics, AtomicBoolean stop) {
    Map<String, Object> config = new HashMap<>(kafka.clientSettings("", ""));
    config.put(ConsumerConfig.GROUP_ID_CONFIG, UniqueNames.group("faults"));
    config.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    config.put(ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, 4 * 1024 * 1024);
    try (KafkaConsumer<String, String> consumer =
        new KafkaConsumer<>(config, new StringDeserializer(), new StringDeserializer())) {
      consumer.subscribe(topics);
      while (!Thread.currentThread().isInterrupted()) {
        for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(100))) {
          if (r.topic().equals(topics.get(1))) {
            String id = oversized.get(r.key());
            if (id != null) {
              String[] parts = id.split(":");
              ledger.parked(parts[0], Long.parseLong(parts[1]));
            }
            continue;
          }
          String v = r.value();
          String key = v.substring(v.indexOf(":\"") + 2, v.indexOf("\","));
          long seq = Long.parseLong(v.substring(v.lastIndexOf(':') + 1, v.length() - 1));
          ledger.delivered(key, seq);
        }
      }
    } catch (org.apache.kafka.common.errors.InterruptException e) {
      // the run is over
    }
  }
}
