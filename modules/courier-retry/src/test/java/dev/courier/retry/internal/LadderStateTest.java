package dev.courier.retry.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.courier.core.CourierHeaders;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.record.TimestampType;
import org.junit.jupiter.api.Test;

class LadderStateTest {

  private static final String DEADLINE = CourierHeaders.DEADLINE;
  private static final String KEY = CourierHeaders.ID;

  /** Every header the ladder reads, with its name. */
  private static final List<String> READ =
      List.of(
          CourierHeaders.ORIGINAL_TOPIC,
          CourierHeaders.ORIGINAL_PARTITION,
          CourierHeaders.ORIGINAL_OFFSET,
          CourierHeaders.ORIGINAL_TIMESTAMP,
          CourierHeaders.ATTEMPT,
          CourierHeaders.FIRST_FAILURE,
          CourierHeaders.DUE,
          DEADLINE);

  private static ConsumerRecord<byte[], byte[]> record(String topic, RecordHeaders headers) {
    return new ConsumerRecord<>(
        topic,
        3,
        42,
        1_700_000_000_000L,
        TimestampType.CREATE_TIME,
        1,
        1,
        new byte[] {1},
        new byte[] {2},
        headers,
        Optional.empty());
  }

  private static LadderRead read(int tier, String header, byte[] value) {
    RecordHeaders h = new RecordHeaders();
    h.add(header, value);
    return LadderState.read(record(tier == 0 ? "t" : "t.retry." + tier, h), tier, KEY, DEADLINE);
  }

  @Test
  void aCleanMainTopicRecordStartsOnAttemptOneAtItsOwnCoordinates() {
    RecordHeaders h = new RecordHeaders();
    h.add(KEY, "op-1".getBytes(StandardCharsets.UTF_8));
    h.add(DEADLINE, "2030-01-01T00:00:00Z".getBytes(StandardCharsets.UTF_8));
    LadderState s = (LadderState) LadderState.read(record("t", h), 0, KEY, DEADLINE);
    assertThat(s.originalTopic()).isEqualTo("t");
    assertThat(s.originalPartition()).isEqualTo(3);
    assertThat(s.originalOffset()).isEqualTo(42);
    assertThat(s.attempt()).isEqualTo(1);
    assertThat(s.operationKeyText()).contains("op-1");
    assertThat(s.deadline()).contains(Instant.parse("2030-01-01T00:00:00Z"));
    assertThat(s.due()).isEmpty();
  }

  @Test
  void aTierRecordCarriesItsHistory() {
    RecordHeaders h = new RecordHeaders();
    h.add(CourierHeaders.ORIGINAL_TOPIC, "t".getBytes(StandardCharsets.UTF_8));
    h.add(CourierHeaders.ORIGINAL_OFFSET, "7".getBytes(StandardCharsets.UTF_8));
    h.add(CourierHeaders.ATTEMPT, "2".getBytes(StandardCharsets.UTF_8));
    h.add(CourierHeaders.DUE, "1700000000500".getBytes(StandardCharsets.UTF_8));
    h.add(CourierHeaders.OPERATION_KEY, new byte[] {(byte) 0xff, 0});
    LadderState s = (LadderState) LadderState.read(record("t.retry.1", h), 1, KEY, DEADLINE);
    assertThat(s.originalOffset()).isEqualTo(7);
    assertThat(s.attempt()).isEqualTo(2);
    assertThat(s.due()).contains(Instant.ofEpochMilli(1_700_000_000_500L));
    assertThat(s.operationKey()).containsExactly((byte) 0xff, 0);
  }

  @Test
  void theIssuesHostileHeadersAreMalformedNamingHeaderAndValue() {
    assertThat(read(0, CourierHeaders.ATTEMPT, bytes("abc")))
        .isInstanceOfSatisfying(
            Malformed.class,
            m ->
                assertThat(m.describe())
                    .isEqualTo("header courier.attempt='abc': not a whole number"));
    assertThat(read(0, CourierHeaders.ATTEMPT, bytes("0")))
        .isInstanceOfSatisfying(
            Malformed.class, m -> assertThat(m.describe()).contains("courier.attempt='0'"));
    assertThat(read(1, CourierHeaders.FIRST_FAILURE, bytes("banana")))
        .isInstanceOfSatisfying(
            Malformed.class,
            m ->
                assertThat(m.describe())
                    .contains("courier.first.failure.at='banana'")
                    .contains("ISO-8601"));
    assertThat(read(0, DEADLINE, new byte[] {(byte) 0xc3, 0x28}))
        .isInstanceOfSatisfying(
            Malformed.class,
            m -> assertThat(m.describe()).contains("'\\xc3(").contains("not UTF-8"));
  }

  @Test
  void aVeryLongValueIsShownCut() {
    Malformed m = (Malformed) read(0, CourierHeaders.ATTEMPT, bytes("9".repeat(100_000)));
    assertThat(m.value()).hasSizeLessThan(260).endsWith("(100000 long)");
  }

  /**
   * Random bytes, empty values, very long values and non-UTF-8 in every header the ladder reads:
   * reading never throws, and a value that is not accepted names its header.
   */
  @Test
  void anyBytesInAnyHeaderReadAsAStateOrAsMalformedNeverAsAnException() {
    Random random = new Random(20261201L);
    int malformed = 0;
    for (int i = 0; i < 20_000; i++) {
      String header = READ.get(random.nextInt(READ.size()));
      byte[] value = value(random);
      int tier = random.nextInt(3);
      LadderRead r = read(tier, header, value);
      if (r instanceof Malformed m) {
        malformed++;
        assertThat(m.header()).isEqualTo(header);
        assertThat(m.describe()).startsWith("header " + header + "=");
      } else {
        assertThat(((LadderState) r).attempt()).isBetween(1, 1_000);
      }
    }
    assertThat(malformed).as("most random values are refused").isGreaterThan(10_000);
  }

  private static byte[] value(Random random) {
    switch (random.nextInt(6)) {
      case 0:
        return new byte[0];
      case 1:
        byte[] any = new byte[random.nextInt(40)];
        random.nextBytes(any);
        return any;
      case 2:
        return bytes(String.valueOf(random.nextLong()));
      case 3:
        return bytes("1".repeat(1 + random.nextInt(30_000)));
      case 4:
        return new byte[] {(byte) (0x80 + random.nextInt(0x40)), (byte) random.nextInt(256)};
      default:
        return bytes(Instant.ofEpochMilli(random.nextLong() >>> 20).toString());
    }
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
