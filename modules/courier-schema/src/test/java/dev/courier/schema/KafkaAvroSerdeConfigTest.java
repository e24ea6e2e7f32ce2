package dev.courier.schema;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.courier.schema.subject.RecordNameStrategy;
import dev.courier.schema.subject.TopicNameStrategy;
import dev.courier.schema.subject.TopicRecordNameStrategy;
import java.util.Map;
import org.apache.avro.SchemaBuilder;
import org.apache.kafka.common.config.ConfigException;
import org.junit.jupiter.api.Test;

class KafkaAvroSerdeConfigTest {

  @Test
  void defaultsMatchConfluents() {
    KafkaAvroSerdeConfig config =
        new KafkaAvroSerdeConfig(Map.of("schema.registry.url", "http://registry:8081"));
    assertThat(config.getBoolean("auto.register.schemas")).isTrue();
    assertThat(config.getBoolean("use.latest.version")).isFalse();
    assertThat(config.getBoolean("specific.avro.reader")).isFalse();
    assertThat(config.getInt("max.retries")).isEqualTo(3);
    assertThat(config.subjectNameStrategy(false)).isInstanceOf(TopicNameStrategy.class);
    assertThat(config.urls()).containsExactly("http://registry:8081");
  }

  @Test
  void confluentStrategyClassNamesAreAccepted() {
    KafkaAvroSerdeConfig config =
        new KafkaAvroSerdeConfig(
            Map.of(
                "schema.registry.url", "http://a:8081,http://b:8081",
                "key.subject.name.strategy",
                    "io.confluent.kafka.serializers.subject.RecordNameStrategy",
                "value.subject.name.strategy",
                    "io.confluent.kafka.serializers.subject.TopicRecordNameStrategy"));
    var schema = SchemaBuilder.record("Credit").namespace("bank").fields().endRecord();
    assertThat(config.subjectNameStrategy(true)).isInstanceOf(RecordNameStrategy.class);
    assertThat(config.subjectNameStrategy(true).subjectName("t", true, schema))
        .isEqualTo("bank.Credit");
    assertThat(config.subjectNameStrategy(false)).isInstanceOf(TopicRecordNameStrategy.class);
    assertThat(config.subjectNameStrategy(false).subjectName("t", false, schema))
        .isEqualTo("t-bank.Credit");
    assertThat(new TopicNameStrategy().subjectName("orders", true, schema)).isEqualTo("orders-key");
  }

  @Test
  void badValuesNameTheirKey() {
    assertThatThrownBy(() -> new KafkaAvroSerdeConfig(Map.of()))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("schema.registry.url");
    assertThatThrownBy(
            () -> new KafkaAvroSerdeConfig(Map.of("schema.registry.url", "registry:8081")))
        .hasMessageContaining("schema.registry.url")
        .hasMessageContaining("is not an http(s) URL");
    assertThatThrownBy(
            () ->
                new KafkaAvroSerdeConfig(
                        Map.of(
                            "schema.registry.url", "http://r:8081",
                            "value.subject.name.strategy", "com.example.Nope"))
                    .subjectNameStrategy(false))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("value.subject.name.strategy");
    assertThatThrownBy(
            () ->
                new KafkaAvroSerdeConfig(
                    Map.of(
                        "schema.registry.url", "http://r:8081",
                        "basic.auth.credentials.source", "USER_INFO",
                        "basic.auth.user.info", "nocolon")))
        .hasMessageContaining("basic.auth.user.info");
    assertThatThrownBy(
            () ->
                new KafkaAvroSerdeConfig(
                    Map.of("schema.registry.url", "http://r:8081", "max.retries", -1)))
        .hasMessageContaining("max.retries");
  }
}
