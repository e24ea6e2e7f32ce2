package dev.courier.retry.internal;

import static dev.courier.retry.internal.ChainStates.bytes;
import static dev.courier.retry.internal.ChainStates.chain;
import static dev.courier.retry.internal.ChainStates.keys;
import static org.assertj.core.api.Assertions.assertThat;

import dev.courier.testkit.CourierInfraTest;
import dev.courier.testkit.KafkaBroker;
import dev.courier.testkit.UniqueNames;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The blocked keys of the shared ladder become a group's own once, on a real broker: a key the
 * group freed after the upgrade stays free, one it never touched stays blocked across any number of
 * restores, and once copied the shared topic is not read again.
 */
@CourierInfraTest
class ChainStoreUpgradeIT {

  private static final Duration TIMEOUT = Duration.ofSeconds(30);

  private KafkaBroker kafka;
  private KafkaProducer<byte[], byte[]> producer;
  private final TopicPartition main = new TopicPartition(UniqueNames.topic("orders"), 0);
  private final String own = main.topic() + ".billing.retry.blocked";
  private final String shared = main.topic() + ".retry.blocked";

  @BeforeEach
  void setUp(KafkaBroker kafka) {
    this.kafka = kafka;
    kafka.createTopic(own, 1);
    kafka.createTopic(shared, 1);
    producer =
        new KafkaProducer<>(
            kafka.producerConfig(), new ByteArraySerializer(), new ByteArraySerializer());
  }

  @AfterEach
  void tearDown() {
    producer.close();
  }

  @Test
  void theSharedKeysAreCopiedOnceAndAKeyFreedSinceStaysFree() throws Exception {
    write(shared, "k1", chain(main, "k1", 10, 11, 12));
    write(shared, "k2", chain(main, "k2", 20, 21));
    write(own, "k1", null); // freed by the group's ladder before this partition's next restore

    assertThat(keys(restore())).as("k1 freed since, k2 still blocked").containsExactly("k2");
    List<KeyChain> again = restore();
    assertThat(keys(again)).as("read back from the group's own").containsExactly("k2");
    assertThat(again.get(0).waiting()).extracting(KeyChain.Waiting::offset).containsExactly(21L);

    write(shared, "k3", chain(main, "k3", 30)); // written by a ladder not yet upgraded: too late
    write(own, "k2", null);
    assertThat(restore()).as("the shared topic is read no more").isEmpty();
  }

  @Test
  void aPartitionWithNoSharedTopicIsItsOwnRecord() throws Exception {
    write(own, "k1", chain(main, "k1", 10, 11));
    try (ChainStore store = store(null)) {
      assertThat(keys(store.restore(main, -1))).containsExactly("k1");
    }
  }

  private List<KeyChain> restore() {
    try (ChainStore store = store(shared)) {
      return store.restore(main, -1);
    }
  }

  private ChainStore store(String sharedTopic) {
    return new ChainStore(
        new KafkaConsumer<>(
            kafka.consumerConfig(UniqueNames.group("chains")),
            new ByteArrayDeserializer(),
            new ByteArrayDeserializer()),
        producer,
        own,
        main.topic() + ".billing.dlt",
        sharedTopic,
        TIMEOUT,
        null);
  }

  private void write(String topic, String key, byte[] value) throws Exception {
    producer
        .send(new ProducerRecord<>(topic, 0, ChainRecords.key(0, bytes(key)), value))
        .get(30, TimeUnit.SECONDS);
  }
}
