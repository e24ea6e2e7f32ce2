package dev.courier.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class CrashPointTest {

  @Test
  void sameNameIsTheSameInstance() {
    assertThat(CrashPoint.named("after-db-commit-before-offset-commit"))
        .isSameAs(CrashPoints.AFTER_DB_COMMIT_BEFORE_OFFSET_COMMIT);
  }

  @Test
  void namesAreLowerCaseHyphenatedWords() {
    assertThatThrownBy(() -> CrashPoint.named("After Commit"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'After Commit'");
    assertThatThrownBy(() -> CrashPoint.named("after--commit"))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void unarmedReachReturns() {
    // This JVM is not armed: reaching any point must be a no-op, however often.
    CrashPoint point = CrashPoint.named("unit-test-point");
    for (int i = 0; i < 1_000; i++) {
      point.reach();
    }
    assertThat(point.name()).isEqualTo("unit-test-point");
  }

  @Test
  void armingValueCarriesTheOccurrence() {
    CrashPoint point = CrashPoint.named("unit-test-point");
    assertThat(point.armingValue(1)).isEqualTo("unit-test-point");
    assertThat(point.armingValue(4)).isEqualTo("unit-test-point#4");
    assertThatThrownBy(() -> point.armingValue(0)).isInstanceOf(IllegalArgumentException.class);
  }
}
