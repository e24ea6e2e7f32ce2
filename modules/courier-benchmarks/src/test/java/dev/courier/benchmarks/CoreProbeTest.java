package dev.courier.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class CoreProbeTest {

  private static final String OUTPUT =
      String.join(
          "\n",
          "probe 1000 1300000",
          "probe 1250 1350000",
          "probe 1500 2100000",
          "probe 1750 2000000",
          "something else the JVM printed",
          "probe 2000 2050000",
          "");

  @Test
  void theMedianIsTakenOverTheSamplesInsideTheWindow() {
    assertThat(CoreProbe.median(OUTPUT, 1000, 1250)).isEqualTo(1.325);
    assertThat(CoreProbe.median(OUTPUT, 1500, 2000)).isEqualTo(2.05);
  }

  @Test
  void aWindowWithoutSamplesHasNoMedian() {
    assertThat(CoreProbe.median(OUTPUT, 3000, 4000)).isNaN();
    assertThat(CoreProbe.NONE.medianMillis(0, Long.MAX_VALUE)).isNaN();
  }
}
