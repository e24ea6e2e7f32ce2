package dev.courier.retry.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.courier.core.CourierHeaders;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.record.TimestampType;
import org.junit.jupiter.api.Test;

class TierWaitsTest {

  private static final Instant T0 = Instant.parse("2026-12-01T10:00:00Z");
  private static final TopicPartition TIER_1 = new TopicPartition("payments.retry-1", 0);
  private static final TopicPartition TIER_2 = new TopicPartition("payments.retry-2", 3);

  private final TierWaits waits = new TierWaits(Duration.ofMillis(100), 3);

  @Test
  void heldRecordsComeBackInOrderOnceTheirHeadIsDueAndNotBefore() {
    List<ConsumerRecord<byte[], byte[]>> held =
        List.of(record(TIER_1, 7, 100), record(TIER_1, 8, 101));
    waits.hold(TIER_1, T0.plusMillis(500), held);

    assertThat(waits.waiting(TIER_1)).isTrue();
    assertThat(waits.takeDue(T0.plusMillis(499))).as("one millisecond early").isEmpty();

    Map<TopicPartition, List<ConsumerRecord<byte[], byte[]>>> due =
        waits.takeDue(T0.plusMillis(500));

    assertThat(due).containsOnlyKeys(TIER_1);
    assertThat(due.get(TIER_1)).extracting(ConsumerRecord::offset).containsExactly(7L, 8L);
    assertThat(waits.waiting(TIER_1)).as("taken, so no longer waiting").isFalse();
    assertThat(waits.takeDue(T0.plusSeconds(10))).isEmpty();
  }

  @Test
  void thePollWaitsNoLongerThanUntilTheNextHeadIsDue() {
    waits.hold(TIER_1, T0.plusMillis(300), List.of(record(TIER_1, 1, 0)));
    waits.hold(TIER_2, T0.plusMillis(120), List.of(record(TIER_2, 1, 0)));

    assertThat(waits.pollTimeout(Duration.ofSeconds(1), T0)).isEqualTo(Duration.ofMillis(120));
    assertThat(waits.pollTimeout(Duration.ofMillis(50), T0)).isEqualTo(Duration.ofMillis(50));
    assertThat(waits.pollTimeout(Duration.ofSeconds(1), T0.plusSeconds(1))).isZero();
  }

  @Test
  void aForgottenPartitionHoldsNothingAndAgesNoTier() {
    waits.hold(TIER_1, T0.plusMillis(300), List.of(record(TIER_1, 1, 1_000)));
    waits.hold(TIER_2, T0.plusMillis(300), List.of(record(TIER_2, 4, 2_000)));
    assertThat(waits.oldestByTier(topic -> topic.endsWith("1") ? 1 : 2))
        .containsEntry(1, 1_000L)
        .containsEntry(2, 2_000L);

    waits.forget(List.of(TIER_1));

    assertThat(waits.waiting(TIER_1)).isFalse();
    assertThat(waits.takeDue(T0.plusSeconds(1))).containsOnlyKeys(TIER_2);
    assertThat(waits.oldestByTier(topic -> 1)).isEmpty();
  }

  @Test
  void aWaitingPartitionIsFetchedAheadWhileWhatItHoldsFallsDueSoonAndUnderTheCap() {
    waits.hold(TIER_1, T0.plusMillis(50), List.of(due(TIER_1, 1, T0.plusMillis(50))));

    assertThat(waits.fetchAhead(TIER_1, T0)).as("its last record due within 100 ms").isTrue();
    assertThat(waits.fetchAhead(TIER_1, T0.minusMillis(51))).as("due in 101 ms").isFalse();
    assertThat(waits.fetchAhead(TIER_2, T0)).as("not waiting").isFalse();

    waits.append(TIER_1, List.of(due(TIER_1, 2, T0.plusMillis(60))));
    assertThat(waits.fetchAhead(TIER_1, T0)).isTrue();
    waits.append(TIER_1, List.of(due(TIER_1, 3, T0.plusMillis(70))));
    assertThat(waits.fetchAhead(TIER_1, T0)).as("three held: the cap").isFalse();

    assertThat(waits.takeDue(T0.plusMillis(50)).get(TIER_1))
        .as("appended behind what it held, in order")
        .extracting(ConsumerRecord::offset)
        .containsExactly(1L, 2L, 3L);
  }

  @Test
  void aLastRecordWithoutADueTimeCountsAsDueNow() {
    waits.hold(TIER_1, T0.plusMillis(500), List.of(record(TIER_1, 1, 0)));
    assertThat(waits.fetchAhead(TIER_1, T0)).isTrue();
    assertThatThrownBy(() -> waits.append(TIER_2, List.of(record(TIER_2, 1, 0))))
        .isInstanceOf(IllegalStateException.class);
  }

  @Test
  void aLastRecordsDueTimeIsReadAsTheLoopReadsItAndAMalformedOneCountsAsDueNow() {
    ConsumerRecord<byte[], byte[]> iso = record(TIER_1, 1, 0);
    iso.headers()
        .add(CourierHeaders.DUE, T0.plusSeconds(60).toString().getBytes(StandardCharsets.UTF_8));
    waits.hold(TIER_1, T0.plusSeconds(60), List.of(iso));
    assertThat(waits.fetchAhead(TIER_1, T0)).as("an ISO-8601 due time a minute away").isFalse();

    ConsumerRecord<byte[], byte[]> banana = record(TIER_2, 1, 0);
    banana.headers().add(CourierHeaders.DUE, "banana".getBytes(StandardCharsets.UTF_8));
    waits.hold(TIER_2, T0.plusSeconds(60), List.of(banana));
    assertThat(waits.fetchAhead(TIER_2, T0)).isTrue();
  }

  @Test
  void aWaitHoldsAtLeastItsHead() {
    assertThatThrownBy(() -> waits.hold(TIER_1, T0, List.of()))
        .isInstanceOf(IllegalArgumentException.class);
  }

  private static ConsumerRecord<byte[], byte[]> due(TopicPartition tp, long offset, Instant due) {
    ConsumerRecord<byte[], byte[]> r = record(tp, offset, 0);
    r.headers()
        .add(
            CourierHeaders.DUE,
            String.valueOf(due.toEpochMilli()).getBytes(StandardCharsets.UTF_8));
    return r;
  }

  private static ConsumerRecord<byte[], byte[]> record(TopicPartition tp, long offset, long ts) {
    return new ConsumerRecord<>(
        tp.topic(),
        tp.partition(),
        offset,
        ts,
        TimestampType.CREATE_TIME,
        0,
        0,
        new byte[0],
        new byte[0],
        new RecordHeaders(),
        Optional.empty());
  }
}
