package dev.courier.retry;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class BackOffTest {

  private final BackOff backOff =
      BackOff.exponentialFullJitter(Duration.ofMillis(100), Duration.ofSeconds(1));

  @Test
  void fullJitterIsUniformUnderTheCappedExponentialCeiling() {
    assertThat(backOff.ceiling(1)).isEqualTo(Duration.ofMillis(100));
    assertThat(backOff.ceiling(3)).isEqualTo(Duration.ofMillis(400));
    assertThat(backOff.ceiling(5)).isEqualTo(Duration.ofSeconds(1));
    assertThat(backOff.ceiling(40)).isEqualTo(Duration.ofSeconds(1));
    SplittableRandom random = new SplittableRandom(42);
    for (int retry = 1; retry <= 6; retry++) {
      for (int i = 0; i < 1000; i++) {
        assertThat(backOff.delay(retry, random)).isBetween(Duration.ZERO, backOff.ceiling(retry));
      }
    }
  }

  @Test
  void aSeededSourceGivesTheSameDelays() {
    assertThat(delays(new SplittableRandom(7))).isEqualTo(delays(new SplittableRandom(7)));
    assertThat(delays(new SplittableRandom(7))).isNotEqualTo(delays(new SplittableRandom(8)));
  }

  private List<Duration> delays(SplittableRandom random) {
    List<Duration> delays = new ArrayList<>();
    for (int retry = 1; retry <= 5; retry++) {
      delays.add(backOff.delay(retry, random));
    }
    return delays;
  }

  @Test
  void fixedIsFixed() {
    assertThat(BackOff.fixed(Duration.ofSeconds(2)).delay(3, new SplittableRandom(1)))
        .isEqualTo(Duration.ofSeconds(2));
  }
}
