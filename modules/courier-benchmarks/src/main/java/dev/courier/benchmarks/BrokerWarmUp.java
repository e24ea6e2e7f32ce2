package dev.courier.benchmarks;

import dev.courier.testkit.KafkaProcess;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * The broker as a relay meets it in production: one that has served transactions, produces and
 * committed reads before. A broker started for the run makes its first phase pay for what no later
 * phase pays: creating {@code __transaction_state} and {@code __consumer_offsets}, loading its
 * coordinators and compiling its own request paths (the relay's first position transaction took 676
 * ms on a fresh broker, in a flight recording of the relay). What the harness measures is the
 * relay's cold start, not the broker's.
 */
final class BrokerWarmUp {

  private BrokerWarmUp() {}

  /** Transactions of one record, plain produces and a committed read, for {@code time}. */
  static int warm(KafkaProcess kafka, Duration time) {
    String topic = "bench-warm-up";
    kafka.createTopic(topic, 3);
    Map<String, Object> p = new HashMap<>();
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
    p.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, "bench-warm-up-" + UUID.randomUUID());
    p.put(ProducerConfig.LINGER_MS_CONFIG, 1);
    Map<String, Object> c = new HashMap<>();
    c.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
    c.put(ConsumerConfig.GROUP_ID_CONFIG, "bench-warm-up");
    c.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    c.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    int transactions = 0;
    try (KafkaProducer<byte[], byte[]> producer =
            new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer());
        KafkaConsumer<byte[], byte[]> consumer =
            new KafkaConsumer<>(c, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
      producer.initTransactions();
      consumer.subscribe(List.of(topic));
      long end = System.nanoTime() + time.toNanos();
      while (System.nanoTime() < end) {
        producer.beginTransaction();
        producer.send(new ProducerRecord<>(topic, transactions % 3, null, new byte[100]));
        producer.commitTransaction();
        transactions++;
        if (transactions % 50 == 0) {
          consumer.poll(Duration.ofMillis(10));
          consumer.commitSync();
        }
      }
    }
    return transactions;
  }
}
