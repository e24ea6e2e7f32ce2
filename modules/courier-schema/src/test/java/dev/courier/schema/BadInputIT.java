package dev.courier.schema;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.courier.schema.AvroDeserializationException.Reason;
import dev.courier.testkit.CourierInfra;
import dev.courier.testkit.CourierInfraTest;
import dev.courier.testkit.KafkaBroker;
import dev.courier.testkit.UniqueNames;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.RecordDeserializationException;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.Test;

/**
 * Bad bytes on a real topic: Kafka's consumer reports partition and offset, Courier's exception
 * under it the topic, schema id and reason; the consumer skips the record and reads on.
 */
@CourierInfraTest
class BadInputIT {

  @Test
  void eachBadRecordIsReportedWithItsCoordinatesAndSkipped(CourierInfra infra) throws IOException {
    KafkaBroker kafka = infra.kafka();
    String url = infra.schemaRegistry().url();
    String topic = UniqueNames.topic("credits-bad");
    kafka.createTopic(topic, 1);

    KafkaAvroSerializer serializer = new KafkaAvroSerializer();
    serializer.configure(Map.of("schema.registry.url", url), false);
    byte[] good = serializer.serialize(topic, WireFormatVectorTest.fixedCredit());
    byte[] wrongMagic = good.clone();
    wrongMagic[0] = 7;
    byte[] unknownId = good.clone();
    unknownId[1] = 0x7f;
    byte[] truncated = java.util.Arrays.copyOf(good, 9);
    byte[] hostileLength = KafkaAvroDeserializerTest.declaringAHugeString(good);
    byte[] noSuchBranch = KafkaAvroDeserializerTest.upToTheDeadline(good, e -> e.writeIndex(5));

    try (KafkaProducer<byte[], byte[]> producer =
        new KafkaProducer<>(
            kafka.producerConfig(), new ByteArraySerializer(), new ByteArraySerializer())) {
      for (byte[] value :
          List.of(wrongMagic, unknownId, truncated, hostileLength, noSuchBranch, good)) {
        producer.send(new ProducerRecord<>(topic, value));
      }
      producer.flush();
    }

    KafkaAvroDeserializer deserializer = new KafkaAvroDeserializer();
    deserializer.configure(Map.of("schema.registry.url", url, "specific.avro.reader", true), false);
    List<RecordDeserializationException> failures = new ArrayList<>();
    List<Object> values = new ArrayList<>();
    try (KafkaConsumer<String, Object> consumer =
        new KafkaConsumer<>(
            kafka.consumerConfig(UniqueNames.group("bad-input")),
            new StringDeserializer(),
            deserializer)) {
      consumer.subscribe(List.of(topic));
      long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
      while (values.isEmpty() && System.nanoTime() < deadline) {
        RecordDeserializationException failure =
            catchThrowableOfType(
                RecordDeserializationException.class,
                () -> {
                  for (ConsumerRecord<String, Object> r : consumer.poll(Duration.ofMillis(200))) {
                    values.add(r.value());
                  }
                });
        if (failure != null) {
          failures.add(failure);
          // What the DLT layer will do: record the failure, then move past the poison record.
          consumer.seek(failure.topicPartition(), failure.offset() + 1);
        }
      }
    }

    assertThat(values).containsExactly(WireFormatVectorTest.fixedCredit());
    assertThat(failures).hasSize(5);
    assertFailure(failures.get(0), topic, 0, Reason.WRONG_MAGIC_BYTE, -1);
    assertFailure(
        failures.get(1), topic, 1, Reason.UNKNOWN_SCHEMA_ID, 0x7f000000 | (good[4] & 0xff));
    int id = java.nio.ByteBuffer.wrap(good, 1, 4).getInt();
    assertFailure(failures.get(2), topic, 2, Reason.TRUNCATED, id);
    assertFailure(failures.get(3), topic, 3, Reason.TRUNCATED, id);
    assertFailure(failures.get(4), topic, 4, Reason.MALFORMED, id);
  }

  private static void assertFailure(
      RecordDeserializationException failure,
      String topic,
      long offset,
      Reason reason,
      int schemaId) {
    assertThat(failure.topicPartition()).isEqualTo(new TopicPartition(topic, 0));
    assertThat(failure.offset()).isEqualTo(offset);
    assertThat(failure.getMessage()).contains(topic + "-0").contains("offset " + offset);
    assertThat(failure.getCause())
        .isInstanceOfSatisfying(
            AvroDeserializationException.class,
            e -> {
              assertThat(e.reason()).isEqualTo(reason);
              assertThat(e.topic()).isEqualTo(topic);
              assertThat(e.schemaId()).isEqualTo(schemaId);
            });
  }
}
