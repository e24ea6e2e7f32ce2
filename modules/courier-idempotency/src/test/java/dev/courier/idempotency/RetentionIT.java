package dev.courier.idempotency;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.courier.core.CourierHeaders;
import dev.courier.testkit.CourierInfraTest;
import dev.courier.testkit.KafkaBroker;
import dev.courier.testkit.MutableClock;
import dev.courier.testkit.TestDatabase;
import dev.courier.testkit.UniqueNames;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.record.TimestampType;
import org.junit.jupiter.api.Test;

@CourierInfraTest
class RetentionIT {

  private static final long WEEK = Duration.ofDays(7).toMillis();

  @Test
  void windowShorterThanTopicRetentionIsRefusedUnlessOverridden(
      KafkaBroker kafka, Admin admin, TestDatabase db) {
    String topic = UniqueNames.topic("credits");
    kafka.createTopic(topic, 1, Map.of("retention.ms", String.valueOf(WEEK)));
    String compacted = UniqueNames.topic("accounts");
    kafka.createTopic(compacted, 1, Map.of("cleanup.policy", "compact"));

    assertThatThrownBy(
            () ->
                retention(db, Duration.ofDays(1), false).checkAgainstTopics(admin, List.of(topic)))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("idempotency.retention.ms=86400000 is shorter than topic " + topic)
        .hasMessageContaining("retention.ms=604800000")
        .hasMessageContaining("would be applied again")
        .hasMessageContaining("idempotency.retention.check.override=true");
    assertThatThrownBy(
            () ->
                retention(db, Duration.ofDays(30), false)
                    .checkAgainstTopics(admin, List.of(compacted)))
        .hasMessageContaining("compacted: forever");

    retention(db, Duration.ofDays(8), false).checkAgainstTopics(admin, List.of(topic));
    retention(db, Duration.ofDays(1), true).checkAgainstTopics(admin, List.of(topic, compacted));
  }

  @Test
  void purgeRemovesOnlyKeysOlderThanTheWindow(TestDatabase db) {
    MutableClock clock = new MutableClock(Instant.parse("2026-06-01T00:00:00Z"));
    String consumer = UniqueNames.group("purge");
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    IdempotentHandler<String, String> handler =
        IdempotentHandler.<String, String>builder()
            .dataSource(db.dataSource())
            .consumerName(consumer)
            .clock(clock)
            .meterRegistry(registry)
            .effect((c, r) -> {})
            .build();
    handler.handle(record("old"));
    clock.advance(Duration.ofDays(2));
    handler.handle(record("recent"));
    clock.advance(Duration.ofHours(1));

    IdempotencyRetention retention =
        IdempotencyRetention.create(
            db.dataSource(),
            Map.of(
                IdempotencyConfig.CONSUMER_NAME,
                consumer,
                IdempotencyConfig.RETENTION_MS,
                Duration.ofDays(1).toMillis()),
            clock,
            registry);
    assertThat(retention.purge()).isEqualTo(1);
    assertThat(registry.get("courier.idempotency.store.rows").gauge().value()).isEqualTo(1.0);
    assertThat(registry.get("courier.idempotency.purge.runs").counter().count()).isEqualTo(1.0);
    // The purged key is forgotten: a redelivery now would be applied again, hence the start check.
    assertThat(handler.handle(record("old"))).isEqualTo(Outcome.APPLIED);
    assertThat(handler.handle(record("recent"))).isEqualTo(Outcome.DUPLICATE);
  }

  private static IdempotencyRetention retention(
      TestDatabase db, Duration window, boolean override) {
    return IdempotencyRetention.create(
        db.dataSource(),
        Map.of(
            IdempotencyConfig.CONSUMER_NAME,
            "billing",
            IdempotencyConfig.RETENTION_MS,
            window.toMillis(),
            IdempotencyConfig.RETENTION_CHECK_OVERRIDE,
            override),
        java.time.Clock.systemUTC(),
        new SimpleMeterRegistry());
  }

  private static ConsumerRecord<String, String> record(String key) {
    RecordHeaders headers = new RecordHeaders();
    headers.add(CourierHeaders.ID, key.getBytes(StandardCharsets.UTF_8));
    return new ConsumerRecord<>(
        "credits",
        0,
        0,
        0L,
        TimestampType.CREATE_TIME,
        0,
        0,
        null,
        "v",
        headers,
        java.util.Optional.empty());
  }
}
