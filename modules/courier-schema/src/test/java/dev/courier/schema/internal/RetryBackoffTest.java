package dev.courier.schema.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class RetryBackoffTest {

  @Test
  void ceilingDoublesUpToTheCap() {
    RetryBackoff backoff = new RetryBackoff(1000, 20_000, new SplittableRandom(1));
    assertThat(backoff.ceilingMs(0)).isEqualTo(1000);
    assertThat(backoff.ceilingMs(1)).isEqualTo(2000);
    assertThat(backoff.ceilingMs(4)).isEqualTo(16_000);
    assertThat(backoff.ceilingMs(5)).isEqualTo(20_000);
    assertThat(backoff.ceilingMs(1_000)).isEqualTo(20_000);
  }

  @Test
  void delaysAreFullJitterWithinTheCeiling() {
    RetryBackoff backoff = new RetryBackoff(100, 1000, new SplittableRandom(7));
    long min = Long.MAX_VALUE;
    long max = 0;
    for (int i = 0; i < 10_000; i++) {
      long delay = backoff.delayMs(3);
      assertThat(delay).isBetween(0L, 800L);
      min = Math.min(min, delay);
      max = Math.max(max, delay);
    }
    assertThat(min).isLessThan(50);
    assertThat(max).isGreaterThan(750);
  }

  @Test
  void zeroBaseMeansNoWait() {
    assertThat(new RetryBackoff(0, 1000, new SplittableRandom()).delayMs(5)).isZero();
  }
}
