package dev.courier.backpressure.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import org.junit.jupiter.api.Test;

class OffsetTimeTableTest {

  private static final Instant T0 = Instant.parse("2026-11-29T12:00:00Z");

  @Test
  void interpolatesBetweenTheSamplesAroundAnOffset() {
    OffsetTimeTable table = new OffsetTimeTable(10);
    table.add(100, T0);
    table.add(200, T0.plusSeconds(10));
    table.add(400, T0.plusSeconds(20));
    assertThat(table.producedAt(150)).isEqualTo(T0.plusSeconds(5));
    assertThat(table.producedAt(300)).isEqualTo(T0.plusSeconds(15));
    // Older than the table: the oldest sample bounds it.
    assertThat(table.producedAt(10)).isEqualTo(T0);
  }

  @Test
  void anIdlePartitionKeepsTheFirstTimeItsEndWasSeen() {
    OffsetTimeTable table = new OffsetTimeTable(10);
    table.add(100, T0);
    table.add(100, T0.plusSeconds(60));
    table.add(101, T0.plusSeconds(70));
    assertThat(table.producedAt(100)).isEqualTo(T0);
  }

  @Test
  void keepsOnlyTheNewestPoints() {
    OffsetTimeTable table = new OffsetTimeTable(2);
    table.add(1, T0);
    table.add(2, T0.plusSeconds(1));
    table.add(3, T0.plusSeconds(2));
    assertThat(table.producedAt(0)).isEqualTo(T0.plusSeconds(1));
  }
}
