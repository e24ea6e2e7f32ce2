package dev.courier.backpressure.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.courier.backpressure.OffsetSample;
import dev.courier.backpressure.Rates;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class PartitionWindowTest {

  private static final Instant T0 = Instant.parse("2026-11-29T12:00:00Z");

  @Test
  void ratesOfTheOverloadCase() {
    // 120/s produced, 100/s completed: lag grows 20/s and nothing drains.
    PartitionWindow w = new PartitionWindow(Duration.ofSeconds(30));
    for (int s = 0; s <= 60; s += 5) {
      long end = 120L * s;
      long committed = 100L * s;
      w.add(new OffsetSample(T0.plusSeconds(s), committed, end, end - committed));
    }
    Rates r = w.rates();
    assertThat(r.produceRate()).isCloseTo(120, within(0.01));
    assertThat(r.commitRate()).isCloseTo(100, within(0.01));
    assertThat(r.lagGrowthRate()).isCloseTo(20, within(0.01));
    assertThat(r.timeToDrain()).isEmpty();
    // The window keeps 30 s plus the baseline sample before it.
    assertThat(w.samples()).hasSize(7);
    assertThat(r.span()).isEqualTo(Duration.ofSeconds(30));
  }

  @Test
  void drainingLagEstimatesTimeToDrain() {
    PartitionWindow w = new PartitionWindow(Duration.ofSeconds(60));
    w.add(new OffsetSample(T0, 0, 1000, 1000));
    w.add(new OffsetSample(T0.plusSeconds(10), 500, 1200, 700));
    // Lag falls 30/s; 700 left: about 23.3 s.
    assertThat(w.rates().timeToDrain()).contains(Duration.ofMillis(23_333));
  }

  @Test
  void lastAdvanceMovesOnlyWhenTheOffsetMovesOrLagIsZero() {
    PartitionWindow w = new PartitionWindow(Duration.ofSeconds(60));
    w.add(new OffsetSample(T0, 5, 10, 5));
    w.add(new OffsetSample(T0.plusSeconds(5), 5, 12, 7));
    assertThat(w.lastAdvance()).isEqualTo(T0);
    w.add(new OffsetSample(T0.plusSeconds(10), 6, 12, 6));
    assertThat(w.lastAdvance()).isEqualTo(T0.plusSeconds(10));
  }
}
