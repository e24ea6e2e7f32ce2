package dev.courier.backpressure.internal;

import static dev.courier.backpressure.internal.OldestRecordReader.NOTHING_WAITING;
import static dev.courier.backpressure.internal.OldestRecordReader.UNREAD;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.Deque;
import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/** The ages the monitor reports from what its reader found, and from what it did not find. */
class AgeBookTest {

  private static final TopicPartition TP = new TopicPartition("orders", 0);
  private static final int ID = 0;

  /** Answers each read with the next scripted stamp, for whatever offset is asked. */
  private static final class Scripted implements RecordStamps {
    final Deque<Long> answers = new ArrayDeque<>();
    int reads;

    @Override
    public Map<TopicPartition, long[]> read(
        Map<TopicPartition, long[]> wanted, Map<TopicPartition, Long> logEnds, Duration timeout) {
      reads++;
      Map<TopicPartition, long[]> found = new HashMap<>();
      wanted.forEach(
          (tp, offsets) -> {
            long[] stamps = new long[offsets.length];
            Arrays.fill(stamps, answers.removeFirst());
            found.put(tp, stamps);
          });
      return found;
    }
  }

  private static void tick(AgeBook book, long now, long offset) {
    book.want(ID, offset);
    book.resolve(now, id -> TP, Map.of(TP, 12L));
  }

  @Test
  void anOffsetNotReadInTimeShowsAnOlderRecordsAgeLabelledAnEstimateAndIsReadAgain() {
    Scripted reader = new Scripted();
    AgeBook book = new AgeBook(reader, Duration.ZERO, Duration.ofSeconds(2));

    reader.answers.add(1_000L);
    tick(book, 10_000, 4);
    assertThat(book.timestamp(ID, 4)).isEqualTo(1_000L);
    assertThat(book.exact(ID, 4)).isTrue();

    // The group moved on to 11, and the read there missed its time.
    reader.answers.add(UNREAD);
    tick(book, 11_000, 11);
    assertThat(book.timestamp(ID, 11)).as("offset 4's record stands in").isEqualTo(1_000L);
    assertThat(book.exact(ID, 11)).isFalse();

    // Read next tick: only a transaction marker is left there.
    reader.answers.add(NOTHING_WAITING);
    tick(book, 12_000, 11);
    assertThat(book.timestamp(ID, 11)).isEqualTo(NOTHING_WAITING);
    assertThat(book.exact(ID, 11)).isTrue();
    assertThat(reader.reads).isEqualTo(3);
  }

  @Test
  void withNothingOlderKnownAMissedReadClaimsNoAge() {
    Scripted reader = new Scripted();
    AgeBook book = new AgeBook(reader, Duration.ofSeconds(30), Duration.ofSeconds(2));

    reader.answers.add(UNREAD);
    tick(book, 10_000, 7);

    assertThat(book.timestamp(ID, 7)).isEqualTo(UNREAD);
    assertThat(book.exact(ID, 7)).isFalse();
  }

  @Test
  void aCachedStampStaysExactAndIsNotReadAgainWithinTheCacheTime() {
    Scripted reader = new Scripted();
    AgeBook book = new AgeBook(reader, Duration.ofSeconds(30), Duration.ofSeconds(2));

    reader.answers.add(5_000L);
    tick(book, 10_000, 3);
    tick(book, 20_000, 3);

    assertThat(reader.reads).isEqualTo(1);
    assertThat(book.timestamp(ID, 3)).isEqualTo(5_000L);
    assertThat(book.exact(ID, 3)).isTrue();
  }
}
