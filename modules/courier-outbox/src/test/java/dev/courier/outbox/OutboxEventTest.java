package dev.courier.outbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.apache.kafka.common.config.ConfigException;
import org.junit.jupiter.api.Test;

class OutboxEventTest {

  @Test
  void validationSaysWhatIsWrong() {
    assertThatThrownBy(
            () ->
                OutboxEvent.builder().aggregate("acc ount", "1").eventType("T").json("{}").build())
        .hasMessageContaining("aggregateType 'acc ount' becomes part of a topic name");
    assertThatThrownBy(
            () -> OutboxEvent.builder().aggregate("account", " ").eventType("T").json("{}").build())
        .hasMessage("aggregateId must not be empty");
    assertThatThrownBy(() -> OutboxEvent.builder().aggregate("account", "1").json("{}").build())
        .hasMessage("eventType must not be empty");
    assertThatThrownBy(
            () ->
                OutboxEvent.builder()
                    .aggregate("account", "1")
                    .eventType("T")
                    .json("{}")
                    .header("id", "x")
                    .build())
        .hasMessageContaining("header 'id' is set by the outbox itself");
  }

  @Test
  void operationKeyGivesAStableEventId() {
    OutboxEvent first =
        OutboxEvent.builder()
            .operationKey("credit-17")
            .aggregate("account", "17")
            .eventType("T")
            .json("{}")
            .build();
    OutboxEvent retry =
        OutboxEvent.builder()
            .operationKey("credit-17")
            .aggregate("account", "17")
            .eventType("T")
            .json("{}")
            .build();
    assertThat(first.eventId())
        .isEqualTo(retry.eventId())
        .isEqualTo(OutboxEvent.idFor("credit-17"));
    assertThat(
            OutboxEvent.builder()
                .aggregate("account", "17")
                .eventType("T")
                .avro(new byte[] {0, 0, 0, 0, 1})
                .build()
                .contentType())
        .isEqualTo(OutboxEvent.AVRO);
  }

  @Test
  void relayConfigNamesTheBadKey() {
    assertThatThrownBy(() -> new OutboxRelayConfig(Map.of("database.hostname", "db")))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("bootstrap.servers");
    Map<String, String> base =
        Map.of(
            "bootstrap.servers",
            "k:9092",
            "database.hostname",
            "db",
            "database.dbname",
            "app",
            "database.user",
            "relay");
    OutboxRelayConfig ok = new OutboxRelayConfig(base);
    assertThat(ok.deadLetterTopic()).isEqualTo("outbox.outbox.dlt");
    assertThat(ok.jdbcUrl()).isEqualTo("jdbc:postgresql://db:5432/app");
    java.util.HashMap<String, String> bad = new java.util.HashMap<>(base);
    bad.put("outbox.invalid.row.policy", "skip");
    assertThatThrownBy(() -> new OutboxRelayConfig(bad))
        .hasMessageContaining("outbox.invalid.row.policy");
  }
}
