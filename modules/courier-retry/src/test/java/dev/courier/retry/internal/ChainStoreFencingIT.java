package dev.courier.retry.internal;

import static dev.courier.retry.internal.ChainStates.bytes;
import static dev.courier.retry.internal.ChainStates.chain;
import static dev.courier.retry.internal.ChainStates.keys;
import static org.assertj.core.api.Assertions.assertThat;

import dev.courier.testkit.CourierInfraTest;
import dev.courier.testkit.KafkaBroker;
import dev.courier.testkit.UniqueNames;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerRecord;
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
 * A former owner's late writes of key state are fenced on a real broker: each owner marks the
 * partition with the generation it was given it in, a write of a lower generation after that is not
 * read back, and the key's state before it is written again by the owner that found it.
 */
@CourierInfraTest
class ChainStoreFencingIT {

  private static final Duration TIMEOUT = Duration.ofSeconds(30);

  private KafkaBroker kafka;
  private KafkaProducer<byte[], byte[]> producer;
  private final TopicPartition main = new TopicPartition(UniqueNames.topic("fenced"), 0);
  private final String own = main.topic() + ".billing.retry.blocked";

  @BeforeEach
  void setUp(KafkaBroker kafka) {
    this.kafka = kafka;
    kafka.createTopic(own, 1);
    producer =
        new KafkaProducer<>(
            kafka.producerConfig(), new ByteArraySerializer(), new ByteArraySerializer());
  }

  @AfterEach
  void tearDown() {
    producer.close();
  }

  @Test
  void aFormerOwnersLateWritesAreNotReadBackAndTheKeysStateIsWrittenAgain() throws Exception {
    write("k1", chain(main, "k1", 10, 11), 3); // the owner of generation 3 blocked k1
    write("k3", chain(main, "k3", 30), -1); // a ladder from before the stamp blocked k3

    assertThat(keys(restore(4))).as("earlier generations' state is kept").contains("k1", "k3");
    write("k1", null, 4); // generation 4 resolved k1
    write("k1", chain(main, "k1", 10, 11), 3); // generation 3 wakes and writes what it held
    write("k2", chain(main, "k2", 20, 21), 3);

    assertThat(keys(restore(5))).as("the late writes are not read back").containsExactly("k3");
    Map<String, ConsumerRecord<byte[], byte[]>> last = lastOfEachKey();
    assertThat(last.get("k1").value()).as("k1's state before the late write: free").isNull();
    assertThat(last.get("k2").value()).as("k2 had no state before the late write").isNull();
    assertThat(ChainRecords.generationOf(last.get("k1"))).isEqualTo(5);
    assertThat(ChainRecords.generationOf(last.get("k2"))).isEqualTo(5);
    assertThat(last.get("k3").value()).as("k3 is not written again").isNotNull();

    assertThat(keys(restore(6))).containsExactly("k3");
    assertThat(ChainRecords.generationOf(lastOfEachKey().get("k1")))
        .as("repaired once: the repair is the key's last word")
        .isEqualTo(5);
  }

  @Test
  void aWriteOfTheOwnersOwnGenerationAfterItsMarkIsReadBack() throws Exception {
    assertThat(restore(7)).isEmpty();
    write("k1", chain(main, "k1", 10, 11), 7);
    assertThat(keys(restore(7))).containsExactly("k1");
    assertThat(keys(restore(8))).containsExactly("k1");
  }

  private List<KeyChain> restore(int generation) {
    try (ChainStore store =
        new ChainStore(
            new KafkaConsumer<>(
                kafka.consumerConfig(UniqueNames.group("chains")),
                new ByteArrayDeserializer(),
                new ByteArrayDeserializer()),
            producer,
            own,
            main.topic() + ".billing.dlt",
            null,
            TIMEOUT,
            null)) {
      List<KeyChain> chains = store.restore(main, generation);
      producer.flush(); // the mark and the repairs, sent unawaited
      return chains;
    }
  }

  private Map<String, ConsumerRecord<byte[], byte[]>> lastOfEachKey() {
    Map<String, ConsumerRecord<byte[], byte[]>> last = new LinkedHashMap<>();
    kafka
        .readPartition(new TopicPartition(own, 0), "read_uncommitted")
        .forEach(
            r ->
                last.put(new String(ChainRecords.recordKeyOf(r.key()), StandardCharsets.UTF_8), r));
    return last;
  }

  private void write(String key, byte[] value, int generation) throws Exception {
    ProducerRecord<byte[], byte[]> r =
        new ProducerRecord<>(own, 0, ChainRecords.key(0, bytes(key)), value);
    ChainRecords.stamp(r.headers(), generation);
    producer.send(r).get(30, TimeUnit.SECONDS);
  }
}
