package dev.courier.idempotency;

import static org.assertj.core.api.Assertions.assertThat;

import dev.courier.core.CourierHeaders;
import dev.courier.testkit.CourierInfraTest;
import dev.courier.testkit.KafkaBroker;
import dev.courier.testkit.TestDatabase;
import dev.courier.testkit.UniqueNames;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Batch mode, chosen by {@code idempotency.batch.mode} alone, with each canonical form: a record
 * whose payload has no canonical form fails alone through {@code onFailure} (reason {@code
 * not-canonical}), its neighbours commit, and the loop goes on.
 */
@CourierInfraTest
class BatchCanonicalFormIT {

  private KafkaBroker kafka;
  private TestDatabase db;
  private Admin admin;

  @BeforeEach
  void setUp(KafkaBroker kafka, TestDatabase db, Admin admin) throws Exception {
    this.kafka = kafka;
    this.db = db;
    this.admin = admin;
    try (Connection c = db.connection();
        Statement s = c.createStatement()) {
      s.execute("CREATE TABLE IF NOT EXISTS canonical_effects (topic text, n int)");
    }
  }

  @Test
  void jsonFormRefusesANonJsonPayloadAloneAndTheOthersCommit() throws Exception {
    Map<Long, Exception> failed =
        run(
            CanonicalForm.json(),
            new StringDeserializer(),
            List.of("{\"a\":1}", "not json {", "{\"b\":2}"));
    assertThat(failed).containsOnlyKeys(1L);
    assertThat(failed.get(1L))
        .isInstanceOf(PayloadNotCanonicalException.class)
        .hasMessageContaining("canonical form");
    assertThat(((PayloadNotCanonicalException) failed.get(1L)).reason()).isEqualTo("not-canonical");
  }

  @Test
  void utf8FormTakesAnyText() throws Exception {
    assertThat(run(CanonicalForm.utf8(), new StringDeserializer(), List.of("x", "北京 \u0000", "")))
        .isEmpty();
  }

  @Test
  void bytesFormTakesAnyBytes() throws Exception {
    assertThat(
            run(
                CanonicalForm.bytes(),
                new ByteArrayDeserializer(),
                List.of("a", "\u00ff\u00fe binary", "")))
        .isEmpty();
  }

  @Test
  void aFormThatThrowsRefusesOnlyThatRecord() throws Exception {
    CanonicalForm<String> picky =
        value -> {
          if (value.startsWith("!")) {
            throw new IllegalStateException("schema id 42 unknown");
          }
          return value.getBytes(StandardCharsets.UTF_8);
        };
    Map<Long, Exception> failed =
        run(picky, new StringDeserializer(), List.of("a", "b", "!c", "d"));
    assertThat(failed).containsOnlyKeys(2L);
    assertThat(failed.get(2L)).hasMessageContaining("schema id 42 unknown");
  }

  /** Runs the five-record batch and returns the failed records' offsets and failures. */
  private <V> Map<Long, Exception> run(
      CanonicalForm<V> form, Deserializer<V> values, List<String> payloads) throws Exception {
    String topic = UniqueNames.topic("canonical");
    kafka.createTopic(topic, 1);
    try (KafkaProducer<byte[], byte[]> producer =
        new KafkaProducer<>(
            kafka.producerConfig(), new ByteArraySerializer(), new ByteArraySerializer())) {
      for (int i = 0; i < payloads.size(); i++) {
        ProducerRecord<byte[], byte[]> r =
            new ProducerRecord<>(
                topic, new byte[] {1}, payloads.get(i).getBytes(StandardCharsets.UTF_8));
        r.headers().add(CourierHeaders.ID, ("op-" + i).getBytes(StandardCharsets.UTF_8));
        producer.send(r);
      }
      producer.flush();
    }
    String group = UniqueNames.group("canonical");
    IdempotentHandler<byte[], V> handler =
        IdempotentHandler.<byte[], V>builder()
            .dataSource(db.dataSource())
            .config(
                Map.of(
                    IdempotencyConfig.CONSUMER_NAME, group, IdempotencyConfig.BATCH_MODE, "true"))
            .canonicalForm(form)
            .effect(
                (c, record) -> {
                  try (PreparedStatement ps =
                      c.prepareStatement("INSERT INTO canonical_effects VALUES (?, 1)")) {
                    ps.setString(1, record.topic());
                    ps.executeUpdate();
                  }
                })
            .build();
    assertThat(handler.batchMode()).as("idempotency.batch.mode").isTrue();
    Map<Long, Exception> failed = new ConcurrentHashMap<>();
    try (IdempotentConsumer<byte[], V> consumer =
        IdempotentConsumer.builder(withGroup(kafka, group), new ByteArrayDeserializer(), values)
            .topics(List.of(topic))
            .handler(handler)
            .onFailure((record, failure) -> failed.put(record.offset(), failure))
            .build()) {
      consumer.runUntil(progress -> progress.handled() >= payloads.size());
      assertThat(consumer.progress().failed()).isEqualTo(failed.size());
    }
    assertThat(applied(topic)).isEqualTo(payloads.size() - failed.size());
    assertThat(
            admin
                .listConsumerGroupOffsets(group)
                .partitionsToOffsetAndMetadata()
                .get(30, TimeUnit.SECONDS)
                .get(new TopicPartition(topic, 0))
                .offset())
        .as("every record is past, the refused ones included")
        .isEqualTo(payloads.size());
    return failed;
  }

  private long applied(String topic) throws Exception {
    try (Connection c = db.connection();
        PreparedStatement ps =
            c.prepareStatement("SELECT count(*) FROM canonical_effects WHERE topic = ?")) {
      ps.setString(1, topic);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return rs.getLong(1);
      }
    }
  }

  private static Map<String, Object> withGroup(KafkaBroker kafka, String group) {
    Map<String, Object> settings = kafka.clientSettings();
    settings.put(IdempotentConsumerConfig.GROUP_ID, group);
    return settings;
  }
}
