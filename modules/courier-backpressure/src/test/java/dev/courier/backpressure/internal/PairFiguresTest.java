package dev.courier.backpressure.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.courier.backpressure.PartitionLag;
import dev.courier.backpressure.Status;
import dev.courier.backpressure.internal.ClusterOffsets.Owner;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/** Rates and Burrow's rules from the pair state the monitor keeps, tick by tick, without Kafka. */
class PairFiguresTest {

  private static final long T0 = 1_796_000_000_000L;
  private static final TopicPartition ORDERS_0 = new TopicPartition("orders", 0);
  private static final Owner MEMBER = new Owner("consumer-1", "/10.0.0.1", "billing-1");

  private final Duration window = Duration.ofSeconds(30);
  private final WindowSlots slots = new WindowSlots(window);
  private final PartitionTable table = new PartitionTable(slots, true);
  private final GroupWindows windows = new GroupWindows();
  private final PairFigures figures = new PairFigures(slots, table, null, false);
  private int tick;
  private long previous = Long.MIN_VALUE;

  /** One tick at T0 + {@code second} s with the group at {@code committed} of {@code end}. */
  private PartitionLag at(long second, long committed, long end, boolean owned) {
    long now = T0 + second * 1000;
    tick++;
    int opened = slots.advance(now);
    windows.row(table.id(ORDERS_0, tick), tick, committed, owned ? 0 : -1);
    windows.sweep(tick);
    table.observe(tick, now, opened, Map.of(ORDERS_0, end), Map.of(), Map.of());
    GroupRows rows =
        figures.rows(
            "billing",
            windows,
            owned ? new Owner[] {MEMBER} : new Owner[0],
            table.figures(),
            now,
            previous,
            opened);
    previous = now;
    assertThat(rows).hasSize(1);
    return rows.get(0);
  }

  @Test
  void aRowWhoseRecordWasNotReadInTimeShowsAnOlderRecordsAgeLabelledAnEstimate() {
    // Exact ages: the record at offset 4 read (a minute old), then the one at 11 not in time.
    Deque<Long> read = new ArrayDeque<>(List.of(T0 - 60_000, OldestRecordReader.UNREAD));
    RecordStamps reader =
        (wanted, ends, timeout) -> {
          Map<TopicPartition, long[]> found = new HashMap<>();
          wanted.forEach((tp, offsets) -> found.put(tp, new long[] {read.removeFirst()}));
          return found;
        };
    AgeBook book = new AgeBook(reader, Duration.ZERO, Duration.ofSeconds(2));
    PartitionTable exact = new PartitionTable(slots, false);
    PairFigures withAges = new PairFigures(slots, exact, book, false);

    PartitionLag first = exactAt(withAges, exact, book, T0, 4);
    assertThat(first.oldestAge()).isEqualTo(Duration.ofSeconds(60));
    assertThat(first.ageEstimated()).isFalse();

    PartitionLag missed = exactAt(withAges, exact, book, T0 + 1000, 11);
    assertThat(missed.oldestAge())
        .as("offset 4's record stands in")
        .isEqualTo(Duration.ofSeconds(61));
    assertThat(missed.ageEstimated()).isTrue();
  }

  private PartitionLag exactAt(
      PairFigures withAges, PartitionTable exact, AgeBook book, long now, long committed) {
    tick++;
    int opened = slots.advance(now);
    windows.row(exact.id(ORDERS_0, tick), tick, committed, 0);
    windows.sweep(tick);
    exact.observe(tick, now, opened, Map.of(ORDERS_0, 12L), Map.of(), Map.of());
    book.want(windows.id(0), withAges.waitingAt(windows, 0));
    book.resolve(now, exact::partition, Map.of(ORDERS_0, 12L));
    GroupRows rows =
        withAges.rows(
            "billing", windows, new Owner[] {MEMBER}, exact.figures(), now, previous, opened);
    previous = now;
    return rows.get(0);
  }

  @Test
  void ratesOfTheOverloadCase() {
    // 120/s produced, 100/s completed: lag grows 20/s and nothing drains.
    PartitionLag p = null;
    for (int s = 0; s <= 60; s += 5) {
      p = at(s, 100L * s, 120L * s, true);
    }
    assertThat(p.rates().produceRate()).isCloseTo(120, within(0.01));
    assertThat(p.rates().commitRate()).isCloseTo(100, within(0.01));
    assertThat(p.rates().lagGrowthRate()).isCloseTo(20, within(0.01));
    assertThat(p.rates().timeToDrain()).isEmpty();
    // The baseline is the oldest slot still in the window: within a step before its start.
    assertThat(p.rates().span())
        .isBetween(window, window.plus(window.dividedBy(WindowSlots.BUCKETS)));
    assertThat(p.verdict().status()).isEqualTo(Status.WARN);
    assertThat(p.verdict().reason()).startsWith("offsets advance but lag grew from");
    assertThat(p.owned()).isTrue();
    assertThat(p.clientId()).isEqualTo("billing-1");
  }

  @Test
  void drainingLagEstimatesTimeToDrain() {
    at(0, 0, 1000, true);
    PartitionLag p = at(10, 500, 1200, true);
    // Lag falls 30/s; 700 left: about 23.3 s.
    assertThat(p.rates().timeToDrain()).contains(Duration.ofMillis(23_333));
    assertThat(p.verdict().reason()).isEqualTo("lag not growing");
  }

  @Test
  void aNewPairHasNoRatesUntilItHasABaseline() {
    PartitionLag p = at(0, 5, 10, false);
    assertThat(p.rates().span()).isZero();
    assertThat(p.verdict().reason()).isEqualTo("not enough samples yet");
  }

  @Test
  void noCommitForLongerThanTheWindowIsStopWithoutAnOwnerAndStallWithOne() {
    for (int s = 0; s <= 30; s += 5) {
      at(s, 5, 10 + s, false);
    }
    PartitionLag stopped = at(35, 5, 45, false);
    assertThat(stopped.verdict().status()).isEqualTo(Status.STOP);
    assertThat(stopped.verdict().reason())
        .isEqualTo(
            "lag 40 and no commit for 35.0 s (longer than the 30.0 s window) and no member"
                + " consuming");
    PartitionLag stalled = at(40, 5, 50, true);
    assertThat(stalled.verdict().status()).isEqualTo(Status.STALL);
  }

  @Test
  void anOffsetMovedBackIsRewindUntilItLeavesTheWindow() {
    at(0, 50, 100, false);
    at(5, 60, 100, false);
    PartitionLag p = at(10, 20, 100, false);
    assertThat(p.verdict().status()).isEqualTo(Status.REWIND);
    assertThat(p.verdict().reason()).isEqualTo("committed offset moved back from 60 to 20");
    for (int s = 15; s <= 60; s += 5) {
      p = at(s, 20 + s, 100 + s, false);
    }
    assertThat(p.verdict().status()).isNotEqualTo(Status.REWIND);
  }

  @Test
  void lagAtZeroWithinTheWindowKeepsThePartitionOk() {
    at(0, 10, 10, false);
    at(5, 10, 15, false);
    PartitionLag p = at(10, 12, 20, false);
    assertThat(p.verdict().reason()).isEqualTo("lag was zero within the window");
  }

  @Test
  void aPartitionWithoutLogEndIsUnknownWithTheReason() {
    long now = T0;
    tick++;
    int opened = slots.advance(now);
    windows.row(table.id(ORDERS_0, tick), tick, 5, -1);
    windows.sweep(tick);
    table.observe(
        tick, now, opened, Map.of(), Map.of(), Map.of(ORDERS_0, "topic deleted or unknown"));
    PartitionLag p =
        figures
            .rows("billing", windows, new Owner[0], table.figures(), now, previous, opened)
            .get(0);
    assertThat(p.known()).isFalse();
    assertThat(p.committedOffset()).isEqualTo(5);
    assertThat(p.verdict().reason()).isEqualTo("topic deleted or unknown");
  }

  @Test
  void rowsComeSortedAndGoWhenTheGroupLeavesAPartition() {
    TopicPartition a1 = new TopicPartition("a", 1);
    TopicPartition a10 = new TopicPartition("a", 10);
    TopicPartition b0 = new TopicPartition("b", 0);
    Map<TopicPartition, Long> ends = Map.of(a1, 5L, a10, 5L, b0, 5L);
    for (TopicPartition tp : new TopicPartition[] {b0, a10, a1}) {
      windows.row(table.id(tp, 1), 1, 1, -1);
    }
    slots.advance(T0);
    table.observe(1, T0, 0, ends, Map.of(), Map.of());
    GroupRows rows = figures.rows("g", windows, new Owner[0], table.figures(), T0, previous, 0);
    assertThat(rows)
        .extracting(p -> p.topic() + "-" + p.partition())
        .containsExactly("a-1", "a-10", "b-0");

    windows.row(table.id(a10, 2), 2, 1, -1);
    windows.sweep(2);
    slots.advance(T0 + 5000);
    table.observe(2, T0 + 5000, -1, ends, Map.of(), Map.of());
    rows = figures.rows("g", windows, new Owner[0], table.figures(), T0 + 5000, T0, -1);
    assertThat(rows).extracting(PartitionLag::partition).containsExactly(10);
    // The freed ids are reused by the next partition.
    assertThat(table.id(new TopicPartition("c", 0), 3)).isLessThan(3);
  }
}
